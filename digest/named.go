package digest

// Named is a Digester that names itself: Name is what a digest it wrote records as its
// Digester ("extractive", "openai:MODEL"). It is constant for the Digester's life.
type Named interface {
	Digester
	Name() string
}

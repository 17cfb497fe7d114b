package transcript

// The limits of a walk, of a search, of a thread list and of what a store keeps.
const (
	// Limits of one walk over a Log.
	SessionWindow = 30   // qualifying messages requested for a turn (Query.Window <= 0 means this)
	PageSize      = 512  // maximum raw rows asked for in one host read
	ScanLimit     = 2048 // maximum raw rows inspected in one walk
	// PageBytes is the content past which the stores of this module end a page early: a
	// page of large rows holds its first row, and rows while their content stays below it,
	// and sets Next for the rest, as ReadBefore may. It bounds what one read holds in memory.
	PageBytes = 4 << 20

	// Bounds of a search.
	SearchLimit    = 20  // matches a search returns when SearchQuery.Limit <= 0
	MaxSearchLimit = 100 // the most matches one search returns
	MaxSearchTerms = 16  // the most terms a search's text may hold
	MaxTermBytes   = 64  // the longest term, in bytes as storage.Terms returns it, a search may hold

	// DefaultThreadLimit is how many threads ListThreads returns when ThreadQuery.Limit <= 0;
	// MaxThreadLimit is the most it returns.
	DefaultThreadLimit = 20
	MaxThreadLimit     = 200

	// MaxContent is the largest content, in bytes, a log keeps: 1 MiB. A store may be
	// opened with a lower limit (storage.Batch.MaxContent), never a higher one.
	MaxContent = 1 << 20
	// MaxAudience is the most participants a writer may list in a new row's Audience. An
	// audience the reply rule fills in (see Message.ResolveAudience) is never refused for
	// its size.
	MaxAudience = 16
	// MaxKeyLen is the longest Key a row may carry, in bytes.
	MaxKeyLen = 256
	// MaxDeskLen is the most characters (runes, not bytes) a desk name may hold.
	MaxDeskLen = 100
)

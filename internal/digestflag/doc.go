// Package digestflag is how the transcript command chooses a digester: the values of its
// flags --digester, --model, --base-url and --digest-timeout, which digest and serve take,
// and the digest.Named they name. Each command adds the flags with its own help;
// [Flags.Digester] checks them together, before anything is opened.
//
// What is wrong with them is a usage error (cliflag.ErrUsage) in the flags' terms. It
// never quotes a base URL back, nor the key in OPENAI_API_KEY: the URL may hold the key.
package digestflag

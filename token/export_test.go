package token

// Refusals is every error Authenticate returns for a request it refuses: each a
// predeclared value, so that none can hold a byte of the header.
var Refusals = []error{ErrMissing, ErrUnknown, ErrRevoked, ErrNotBearer, errNoCredential, errTwoCredentials, errNotSecret}

// SecretLen is the length of a secret New makes.
const SecretLen = secretLen

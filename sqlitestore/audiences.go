package sqlitestore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/sharedesk/transcript"
)

// The audiences table's statements. An audiences row is found by its unique members or by
// its id, never by a scan.
const (
	findAudienceSQL  = `SELECT id FROM audiences WHERE members = ?1`
	newAudienceSQL   = `INSERT INTO audiences (members) VALUES (?1)`
	readAudiencesSQL = `SELECT id, members FROM audiences WHERE id IN (SELECT value FROM json_each(?1))`
)

// audienceCache is the audiences table's intern cache: audiences by the audiences row's
// id, and ids by members encoding (see encodeMembers).
type audienceCache = internCache[string, []transcript.Author]

func newAudienceCache() *audienceCache { return newInternCache[string, []transcript.Author]() }

// member is one author of an audiences row's members, in the authors table's terms.
type member struct {
	Kind  uint8  `json:"kind"`
	Ident string `json:"ident"` // transcript.Author.ID
	Label string `json:"label"`
}

// encodeMembers returns the members encoding of audience, a non-empty audience in the
// canonical order transcript.Message.ResolveAudience returns: one encoding for one
// audience, labels included, so that the column's UNIQUE constraint finds it.
func encodeMembers(audience []transcript.Author) (string, error) {
	ms := make([]member, len(audience))
	for i, a := range audience {
		ms[i] = member{Kind: uint8(a.Kind), Ident: a.ID, Label: a.Label}
	}
	b, err := json.Marshal(ms)
	return string(b), err
}

// decodeMembers returns the audience that members encodes: at least one valid author.
func decodeMembers(members string) ([]transcript.Author, error) {
	var ms []member
	if err := json.Unmarshal([]byte(members), &ms); err != nil {
		return nil, err
	}
	if len(ms) == 0 {
		return nil, errors.New("no members")
	}
	audience := make([]transcript.Author, len(ms))
	for i, m := range ms {
		a := transcript.Author{Kind: transcript.AuthorKind(m.Kind), ID: m.Ident, Label: m.Label}
		if err := a.Validate(); err != nil {
			return nil, fmt.Errorf("member %d: %w", i, err)
		}
		audience[i] = a
	}
	return audience, nil
}

// resolveAudiences sets msgs[i].Audience to the audience whose id is refs[i].audience (none
// for 0, a desk row), from the cache or, for the ids it lacks, from one query on the
// readers. The page owns what it gets: all its audiences are copied into one new array,
// each row's a sub-slice capped at its length, so that appending to one cannot reach
// another's. A page of desk rows costs no allocation. An id without an audiences row is an
// error naming the row: the file was changed outside this package.
func (s *Store) resolveAudiences(ctx context.Context, msgs []transcript.Message, refs []rowRefs) error {
	var sets map[int64][]transcript.Author // the page's audiences by id; nil while the cache lacks one
	missing := 0
	s.audiences.mu.RLock()
	for _, r := range refs {
		if r.audience == 0 {
			continue
		}
		if _, seen := sets[r.audience]; seen {
			continue
		}
		if sets == nil {
			sets = make(map[int64][]transcript.Author)
		}
		a := s.audiences.byID[r.audience]
		if a == nil {
			missing++
		}
		sets[r.audience] = a
	}
	s.audiences.mu.RUnlock()
	if sets == nil {
		return nil
	}
	if missing > 0 {
		ids := make([]int64, 0, missing)
		for id, a := range sets {
			if a == nil {
				ids = append(ids, id)
			}
		}
		found, err := s.readAudiences(ctx, ids)
		if err != nil {
			return err
		}
		for id, f := range found {
			sets[id] = f.audience
			s.audiences.add(id, f.key, f.audience)
		}
	}
	total := 0
	for i, r := range refs {
		if r.audience == 0 {
			continue
		}
		n := len(sets[r.audience])
		if n == 0 {
			return fmt.Errorf("row %d names audience %d, which the audiences table does not hold", msgs[i].Seq, r.audience)
		}
		total += n
	}
	all := make([]transcript.Author, 0, total)
	for i, r := range refs {
		if r.audience != 0 {
			start := len(all)
			all = append(all, sets[r.audience]...)
			msgs[i].Audience = all[start:len(all):len(all)]
		}
	}
	return nil
}

// storedAudience is an audiences row as read: its members, as stored (the cache's key), and
// the audience they encode.
type storedAudience struct {
	key      string
	audience []transcript.Author
}

// readAudiences reads the audiences rows of ids. A row whose members do not decode to an
// audience is an error naming it.
func (s *Store) readAudiences(ctx context.Context, ids []int64) (map[int64]storedAudience, error) {
	list, err := json.Marshal(ids)
	if err != nil {
		return nil, err
	}
	rows, err := s.readAudiencesStmt.QueryContext(ctx, string(list))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	found := make(map[int64]storedAudience, len(ids))
	for rows.Next() {
		var (
			id      int64
			members string
		)
		if err := rows.Scan(&id, &members); err != nil {
			return nil, err
		}
		audience, err := decodeMembers(members)
		if err != nil {
			return nil, fmt.Errorf("audience %d: %w", id, err)
		}
		found[id] = storedAudience{key: members, audience: audience}
	}
	return found, rows.Err()
}

// audienceID returns the id of audience, non-empty and canonical, in the write transaction,
// creating its row when the file has none. The rows it creates are cached only once the
// transaction commits.
func (w *writeTx) audienceID(ctx context.Context, audience []transcript.Author) (int64, error) {
	key, err := encodeMembers(audience)
	if err != nil {
		return 0, fmt.Errorf("audience %v: %w", audience, err)
	}
	if id, ok := w.audiences.known(key); ok {
		return id, nil
	}
	// The caller owns audience: the cache keeps a copy.
	id, err := w.audiences.findOrCreate(ctx, w.tx, w.s.findAudience, w.s.newAudience, key, slices.Clone(audience), key)
	if err != nil {
		return 0, fmt.Errorf("audience %v: %w", audience, err)
	}
	return id, nil
}

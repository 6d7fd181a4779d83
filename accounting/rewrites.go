package accounting

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/cobble-am/cobble/accounting/cache"
)

// rewrites remembers how pgx turns each of the RPC's queries with named
// arguments (@name) into one with positional placeholders ($1, $2, ...).
// pgx does that by lexing the query text on every call, which took a tenth
// of the server's CPU under load (docs/PERFORMANCE.md); the RPC sends the
// same few query texts every time, so each is rewritten once per Store.
type rewrites struct {
	m *cache.Cache[string, rewrite] // query text → its rewriting
}

// rewrite is a query with positional placeholders and, in their order, the
// names of the arguments that fill them.
type rewrite struct {
	sql   string
	names []string
}

// maxRewrites bounds the cache; the RPC has about a dozen query texts.
const maxRewrites = 256

func newRewrites() rewrites {
	return rewrites{m: cache.New[string](cache.Options[rewrite]{Max: maxRewrites})}
}

// positional rewrites, in place, every query of b whose one argument is
// pgx.NamedArgs. A query pgx cannot rewrite, or that names an argument
// its map lacks, is left for pgx to handle (and to report) as usual.
func (c *rewrites) positional(b *pgx.Batch) {
	for _, q := range b.QueuedQueries {
		if len(q.Arguments) != 1 {
			continue
		}
		na, ok := q.Arguments[0].(pgx.NamedArgs)
		if !ok {
			continue
		}
		r, ok := c.lookup(q.SQL, na)
		if !ok {
			continue
		}
		args := make([]any, len(r.names))
		for i, name := range r.names {
			args[i] = na[name]
		}
		q.SQL, q.Arguments = r.sql, args
	}
}

// lookup returns the rewriting of sql, making it with pgx's own rewriter
// the first time: each argument's value is replaced by its name, so the
// arguments pgx returns are the names in placeholder order.
func (c *rewrites) lookup(sql string, na pgx.NamedArgs) (rewrite, bool) {
	r, ok := c.m.Get(sql)
	if ok {
		return r, true
	}
	marks := make(pgx.NamedArgs, len(na))
	for name := range na {
		marks[name] = name
	}
	newSQL, names, err := marks.RewriteQuery(context.Background(), nil, sql, nil)
	if err != nil {
		return rewrite{}, false
	}
	r = rewrite{sql: newSQL, names: make([]string, len(names))}
	for i, n := range names {
		if r.names[i], ok = n.(string); !ok {
			return rewrite{}, false // a name the map lacks
		}
	}
	c.m.Put(sql, r)
	return r, true
}

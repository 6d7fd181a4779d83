package main

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/crypto/bcrypt"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/boinc"
)

// population is what a run creates: the catalog and the hosts.
type population struct {
	run           string // tags this run's volunteers' emails
	projects      [projectsPerHost]accounting.Project
	addedProjects bool // some projects were new to the catalog
	hosts         []*host
	hostIDs       []int64
}

// catalogWait is how long a running Cobble may take to see projects added
// to the catalog: it rereads the catalog every 5 seconds.
const catalogWait = 6 * time.Second

// insertChunk bounds the hosts of one bulk insert.
const insertChunk = 10_000

// createPopulation adds the catalog through Cobble's store, then the
// volunteers, their hosts and AM tokens directly in SQL.
func createPopulation(ctx context.Context, pool *pgxpool.Pool, store *accounting.Store, cfg config) (*population, error) {
	pop := &population{run: randomHex(4)}
	if err := pop.addProjects(ctx, store); err != nil {
		return nil, err
	}
	// One bcrypt for everyone: the load authenticates with AM tokens, so
	// the password is never checked.
	hash, err := bcrypt.GenerateFromPassword([]byte(boinc.PasswordHash("load-password", "load@example.org")),
		bcrypt.DefaultCost)
	if err != nil {
		return nil, err
	}
	rng := mrand.New(mrand.NewPCG(cfg.seed, 0))
	step := max(1, insertChunk/cfg.hostsPerUser)
	for first := 0; first < cfg.users; first += step {
		n := min(step, cfg.users-first)
		if err := pop.addUsers(ctx, pool, first, n, string(hash), cfg.hostsPerUser, rng); err != nil {
			return nil, fmt.Errorf("population: %w", err)
		}
	}
	for _, h := range pop.hosts {
		pop.hostIDs = append(pop.hostIDs, h.id)
	}
	return pop, nil
}

// addProjects adds the load's five projects to the catalog, or finds them
// there from an earlier run. Their URLs are on loopback and never contacted.
func (pop *population) addProjects(ctx context.Context, store *accounting.Store) error {
	for i := range pop.projects {
		p := accounting.Project{URL: fmt.Sprintf("http://127.0.0.1:9/load-p%d/", i+1),
			Name: fmt.Sprintf("Cobble load project %d", i+1), Authenticator: "load-shared-account-key"}
		got, err := store.Catalog.AddProject(ctx, p)
		if errors.Is(err, accounting.ErrConflict) {
			got, err = store.Catalog.ProjectByURL(ctx, p.URL)
		} else if err == nil {
			pop.addedProjects = true
		}
		if err != nil {
			return fmt.Errorf("population: %w", err)
		}
		pop.projects[i] = got
	}
	return nil
}

// addUsers creates n volunteers numbered from first, each with hostsEach
// hosts and an AM token per host.
func (pop *population) addUsers(ctx context.Context, pool *pgxpool.Pool, first, n int, hash string,
	hostsEach int, rng *mrand.Rand) error {
	rows, _ := pool.Query(ctx, `
		INSERT INTO users (email, name, password_hash)
		SELECT format('load-%s-%s@example.org', $1::text, i), format('Load volunteer %s', i), $2
		FROM generate_series($3::int, $4::int) AS i
		RETURNING id`, pop.run, hash, first+1, first+n)
	userIDs, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return err
	}
	var hosts []*host
	for _, u := range userIDs {
		for range hostsEach {
			hosts = append(hosts, newHost(u, len(pop.hosts)+len(hosts), rng))
		}
	}
	if err := insertHosts(ctx, pool, hosts); err != nil {
		return err
	}
	pop.hosts = append(pop.hosts, hosts...)
	return nil
}

// insertHosts stores hosts as after their join (2 CPUs of 1 GFLOPS, like
// the fixture's) and their AM tokens, hashed as Cobble hashes them, and
// sets each host's id.
func insertHosts(ctx context.Context, pool *pgxpool.Pool, hosts []*host) error {
	users, tokens, cpids := make([]int64, len(hosts)), make([]string, len(hosts)), make([]string, len(hosts))
	byToken := make(map[string]*host, len(hosts))
	for i, h := range hosts {
		users[i], tokens[i], cpids[i] = h.userID, h.token, h.cpid
		byToken[h.token] = h
	}
	rows, _ := pool.Query(ctx, `
		INSERT INTO hosts (user_id, opaque_token, host_cpid, domain_name, client_version, platforms,
			ncpus, p_fpops, last_rpc_at, rpc_count)
		SELECT u.user_id, u.token, u.cpid, 'vm', '7.20.5', '{x86_64-pc-linux-gnu}', 2, 1e9, now(), 1
		FROM unnest($1::bigint[], $2::text[], $3::text[]) AS u(user_id, token, cpid)
		RETURNING id, opaque_token`, users, tokens, cpids)
	var id int64
	var token string
	_, err := pgx.ForEachRow(rows, []any{&id, &token}, func() error {
		byToken[token].id = id
		return nil
	})
	if err != nil {
		return err
	}
	hashes, hostIDs := make([][]byte, len(hosts)), make([]int64, len(hosts))
	for i, h := range hosts {
		sum := sha256.Sum256([]byte(h.auth))
		hashes[i], hostIDs[i] = sum[:], h.id
	}
	_, err = pool.Exec(ctx, `
		INSERT INTO am_tokens (token_hash, user_id, host_id)
		SELECT * FROM unnest($1::bytea[], $2::bigint[], $3::bigint[])`, hashes, users, hostIDs)
	return err
}

// randomHex returns n random bytes as hex.
func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b) // never fails (Go ≥ 1.24)
	return hex.EncodeToString(b)
}

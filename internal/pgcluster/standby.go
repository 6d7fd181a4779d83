package pgcluster

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"time"
)

// StartStandby makes a streaming standby of c in the empty (or missing)
// directory dir with pg_basebackup, then starts it as a hot standby on
// 127.0.0.1, on a port free now, streaming from c over loopback; reads on
// it see c's changes a moment after they commit. settings are extra
// server settings, as for StartWith. Stop it before c.
func (c *Cluster) StartStandby(ctx context.Context, dir string, settings map[string]string, log io.Writer) (*Cluster, error) {
	if log == nil {
		log = io.Discard
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("pgcluster: %w", err)
	}
	if err := prepareDir(dir, c.account); err != nil {
		return nil, err
	}
	if c.account != nil {
		if err := c.account.chownTree(dir); err != nil {
			return nil, err
		}
	}
	if existing, err := clusterVersion(dir); err != nil || existing != "" {
		return nil, fmt.Errorf("pgcluster: a standby needs an empty directory, and %s holds a cluster (or cannot be read: %v)", dir, err)
	}
	s := &Cluster{
		Dir:     dir,
		LogFile: filepath.Join(filepath.Dir(dir), filepath.Base(dir)+".log"),
		bin:     c.bin,
		account: c.account,
		log:     log,
	}
	began := time.Now()
	// -R writes standby.signal and the primary_conninfo that streams from c.
	out, err := s.run(ctx, "pg_basebackup", "-h", "127.0.0.1", "-p", strconv.Itoa(c.Port), "-U", Superuser,
		"-D", dir, "-R", "-X", "stream", "--checkpoint=fast", "--no-sync")
	if err != nil {
		return nil, fmt.Errorf("pgcluster: pg_basebackup of the cluster on port %d into %s: %w\n%s", c.Port, dir, err, out)
	}
	fmt.Fprintf(log, "pgcluster: copied the cluster on port %d into %s in %v\n", c.Port, dir, time.Since(began).Round(time.Millisecond))
	if err := s.start(ctx, settings); err != nil {
		return nil, err
	}
	return s, nil
}

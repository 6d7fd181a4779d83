package web

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"

	"github.com/cobble-am/cobble/accounting"
)

// A message's job and its claim: how long each lasts, and how a job that
// River's rescuer took over from a dead sender waits for its claim.

// Timeout is how long River lets one delivery's job run
// (mailJobTimeout): past it the job's context ends, and once River's
// rescuer finds it still running (its instance died), it is tried again.
func (w *mailWorker) Timeout(*river.Job[accounting.MailJob]) time.Duration {
	return mailJobTimeout(w.m.cfg.Timeout)
}

// mailJobTimeout bounds a delivery's job, whose SMTP exchange takes up to
// timeout: claiming the message, the exchange, and recording its outcome
// (each try at that bounded by recordTimeout), with one recordTimeout to
// spare. It is shorter than the claim's lease (mailLease), so that a job
// River gives up on, or takes over from a dead instance, cannot deliver
// the message after another sender's claim began.
func mailJobTimeout(timeout time.Duration) time.Duration { return timeout + 3*recordTimeout }

// mailLease is how long a sender's claim on a message lasts, for a
// delivery that takes up to timeout: past its job's timeout and the last
// try at recording the outcome after it, with a minute to spare.
func mailLease(timeout time.Duration) time.Duration { return 2*timeout + time.Minute }

// waitClaim snoozes the job of message id until the claim on it runs out,
// if one holds it; else the message is no longer queued, and the job is
// done.
func (m *mailer) waitClaim(ctx context.Context, id int64) error {
	claimed, err := m.store.Mail.MailClaimedUntil(ctx, id)
	switch {
	case errors.Is(err, accounting.ErrNotFound):
		return nil
	case err != nil:
		return fmt.Errorf("taking message %d: %w", id, err)
	}
	m.log.Info("mail: message claimed by another sender, waiting for the claim to run out",
		"id", id, "until", claimed)
	return river.JobSnooze(max(time.Until(claimed), 0) + time.Second)
}

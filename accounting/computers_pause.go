package accounting

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// SetPause winds down, pauses or resumes one of the volunteer's computers
// (hostID) or, with hostID 0, all of them; the computers hear it at their
// next RPC. A pause remembers that the client must later be told to resume
// (resume_pending); winding down or resuming keeps that until an RPC has
// said it; resuming after a wind-down owes the next RPC a message that it
// works as usual again (resume_notice). The form's until date is a day in timeZone (the volunteer's);
// a form PauseForm.Parse refuses is a *ValidationError and changes
// nothing. Another volunteer's (or no) computer is ErrNotFound.
func (s *ComputersStore) SetPause(ctx context.Context, userID, hostID int64, f PauseForm, now time.Time, timeZone string) error {
	loc := s.location(timeZone)
	p, err := f.Parse(CivilDay(now.In(loc)), loc)
	if err != nil {
		return op("set pause", err)
	}
	tag, err := s.pool.Exec(ctx, `
		UPDATE hosts SET pause_mode = @mode, pause_until = @until,
			resume_pending = resume_pending OR @mode = 'pause',
			resume_notice = (resume_notice OR pause_mode = 'wind_down') AND @mode = 'none'
		WHERE user_id = @user AND (@host::bigint = 0 OR id = @host)`,
		pgx.NamedArgs{"user": userID, "host": hostID, "mode": string(p.Mode), "until": p.Until})
	if err == nil && hostID != 0 && tag.RowsAffected() == 0 {
		err = ErrNotFound
	}
	return op("set pause", err)
}

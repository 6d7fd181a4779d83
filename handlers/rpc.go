package handlers

import (
	"errors"
	"io"
	"net/http"
	"strconv"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/boinc"
	"github.com/cobble-am/cobble/internal/locale"
)

// MaxRPCBody is the largest AM request Cobble reads. A client with hundreds
// of tasks in progress sends well under this.
const MaxRPCBody = 1 << 20

// RPC answers a BOINC client's account-manager request (POST rpc.php). Bad
// credentials, unreadable requests and Cobble's own failures get an error
// reply with HTTP 200, which the client shows to the volunteer; a database
// that does not answer gets HTTP 503, which the client retries later.
func (a *Client) RPC(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxRPCBody))
	if err != nil {
		a.rpcError(w, http.StatusOK, boinc.CodeXMLParse, readError(err))
		return
	}
	req, err := boinc.ParseRequest(body)
	if err != nil {
		a.rpcError(w, http.StatusOK, boinc.CodeXMLParse, locale.English().T("rpc.unreadable_request", "Error", err.Error()))
		return
	}
	var res accounting.SyncResult
	call := func() (err error) {
		res, err = a.sync.Sync(r.Context(), syncRequest(req, a.now()))
		return err
	}
	passwordAuth := req.Authenticator == ""
	if passwordAuth { // a join: a guess at the account's password
		var refused *refusal
		if refused, err = a.guard.attempt(r.Context(), a.clientAddr(r), req.Name, a.now(), call); refused != nil {
			a.rpcError(w, http.StatusOK, boinc.CodeBadPassword, refused.why.In(locale.English()))
			return
		}
	} else {
		err = call()
	}
	switch {
	case passwordAuth && (errors.Is(err, accounting.ErrUnknownAccount) || errors.Is(err, accounting.ErrBadPassword)):
		// One answer for both, so that the RPC does not tell which emails
		// have accounts; the domain spends the same work on both.
		_, code, _ := rpcAnswer(err)
		a.rpcError(w, http.StatusOK, code, a.credentialsMessage())
		return
	case errors.Is(err, accounting.ErrDisabled):
		_, code, _ := rpcAnswer(err)
		a.rpcError(w, http.StatusOK, code, locale.English().T("rpc.account_disabled"))
		return
	case errors.Is(err, accounting.ErrBadPassword):
		// An authenticator Cobble no longer knows: the volunteer
		// disconnected the computer, the computer (or a copy of its BOINC
		// folder) joined again and got a new one, or the account was
		// deleted. A password change or reset keeps authenticators.
		_, code, _ := rpcAnswer(err)
		a.rpcError(w, http.StatusOK, code, locale.English().T("rpc.revoked"))
		return
	case err != nil:
		a.rpcFailure(w, r, "am rpc failed", err)
		return
	}
	reply, err := a.reply(res)
	if err != nil {
		a.rpcFailure(w, r, "am rpc reply failed", err)
		return
	}
	reply.RSSFeeds = a.rssFeeds(r.Context(), res.User.ID, res.FeedToken)
	writeXML(w, http.StatusOK, reply.AppendXML(nil))
}

// The messages of an RPC that did not authenticate a volunteer are in
// English (locale.English): the client sends no language, and the
// account's is not known (yet, or at all). Once the volunteer is known,
// the reply's messages are in their language (reply).

// credentialsMessage answers an email and password that do not match an
// account, whether the email has none or the password is wrong: the same
// words for both, which still tell a volunteer what to do.
func (a *Client) credentialsMessage() string {
	return locale.English().T("rpc.bad_credentials", "URL", a.cfg.BaseURL)
}

func readError(err error) string {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return locale.English().T("rpc.too_large", "Bytes", strconv.FormatInt(tooBig.Limit, 10))
	}
	return locale.English().T("rpc.unreadable_body")
}

// rpcFailure answers an RPC that failed on Cobble's side (rpcAnswer), and
// logs it once.
func (a *Client) rpcFailure(w http.ResponseWriter, r *http.Request, what string, err error) {
	a.log.ErrorContext(r.Context(), what, "err", err)
	status, code, msg := rpcAnswer(err)
	a.rpcError(w, status, code, msg.In(locale.English()))
}

// rpcAnswer is how an RPC answers err, from err's row of errorTable: an
// outage (the row's code is boinc.CodeProjectDown: the database did not
// answer) gets HTTP 503, after which the client backs off and retries; a
// row with another code gets that code and the row's text; anything else
// is a bug, not an outage, and gets a generic error reply that the client
// shows.
func rpcAnswer(err error) (status, code int, msg locale.Msg) {
	row, ok := errorRowOf(err)
	switch {
	case ok && row.rpc == boinc.CodeProjectDown:
		return http.StatusServiceUnavailable, row.rpc, locale.M("rpc.unavailable")
	case ok && row.rpc != 0:
		return http.StatusOK, row.rpc, row.msg
	}
	return http.StatusOK, boinc.CodeGeneric, locale.M("rpc.failed")
}

func (a *Client) rpcError(w http.ResponseWriter, status, num int, msg string) {
	rep := boinc.Reply{Name: a.cfg.Name, ErrorNum: num, ErrorMsg: msg}
	writeXML(w, status, rep.AppendXML(nil))
}

// reply turns the domain's decision into the XML reply, its messages in
// the volunteer's language.
func (a *Client) reply(res accounting.SyncResult) (*boinc.Reply, error) {
	var messages []string
	if len(res.Messages) > 0 {
		l := userLang(res.User)
		messages = make([]string, len(res.Messages))
		for i, m := range res.Messages {
			messages[i] = m.In(l)
		}
	}
	rep := &boinc.Reply{
		Name:              a.cfg.Name,
		UserName:          res.User.ChosenName(),
		Authenticator:     res.Authenticator,
		RepeatSec:         a.cfg.RepeatSec,
		Dynamic:           true,
		SigningKey:        a.signer.keyText,
		Opaque:            hostOpaque(res.HostToken),
		Messages:          messages,
		GlobalPreferences: globalPrefs(res.Prefs, res.Venues),
		HostVenue:         res.HostVenue,
		UserKeywords:      userKeywords(res.Keywords),
	}
	// Only catalog projects are signed. The projects Cobble no longer knows
	// are already attached: clients apply <detach_when_done/> to an attached
	// project without checking a signature, so none is made for URLs a
	// client sent.
	for _, as := range res.Assignments {
		acct := account(as, res)
		sig, err := a.signer.sign(acct.URL)
		if err != nil {
			return nil, err
		}
		acct.URLSignature = sig
		rep.Accounts = append(rep.Accounts, acct)
	}
	for _, u := range res.Unknown {
		rep.Accounts = append(rep.Accounts, boinc.Account{URL: u, DontRequestMoreWork: true, DetachWhenDone: true})
	}
	return rep, nil
}

// account is the reply's <account> for one assignment, with the
// computer's pause: a wind-down asks for no more work, a pause suspends
// the project, and a resume after a pause says <suspend>0</suspend>.
func account(as accounting.Assignment, res accounting.SyncResult) boinc.Account {
	acct := boinc.Account{URL: as.Project.URL, Authenticator: as.Project.Authenticator,
		ResourceShare: as.Project.Share, NoRsc: as.NoRsc,
		DontRequestMoreWork: as.Action != accounting.Work || res.Pause.Mode == accounting.PauseWindDown,
		DetachWhenDone:      as.Action == accounting.Detach}
	if res.Pause.Mode == accounting.PausePause || res.Pause.Resume {
		suspend := res.Pause.Mode == accounting.PausePause
		acct.Suspend = &suspend
	}
	credit := res.Credit[as.Project.ID]
	acct.UserTotalEC, acct.UserAvgEC = &credit.Total, &credit.Avg
	if c, ok := res.Resume[as.Project.ID]; ok {
		acct.AttachCounters = &boinc.Counters{CPUEC: c.CPUEC, CPUTime: c.CPUTime, GPUEC: c.GPUEC,
			GPUTime: c.GPUTime, JobsSuccess: c.JobsSuccess, JobsError: c.JobsError}
	}
	return acct
}

func writeXML(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "text/xml; charset=utf-8")
	w.WriteHeader(status)
	w.Write(body)
}

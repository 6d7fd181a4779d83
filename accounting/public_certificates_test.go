package accounting_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/cobble-am/cobble/accounting"
)

// A certificate states the rollups' credit between its days, is found by
// its code, whether or not the profile is public, and is gone once its
// volunteer withdraws it; a guessed code, another volunteer's withdrawal
// and bad days are refused.
func TestCertificates(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, ada, bob, through := publicFixture(t)
	from := through.AddDate(0, 0, -9)
	c, err := s.Public.IssueCertificate(ctx, ada.ID,
		accounting.CertificateRequest{Name: " Ada Lovelace ", From: from, To: through, Language: "de"}, through)
	if err != nil {
		t.Fatal(err)
	}
	want := ledgerTotals(t, s, ada.ID, from, through)
	if !near(c.Confirmed, want.Confirmed) || !near(c.Estimated, want.Estimated) || want.Confirmed == 0 {
		t.Errorf("certified %v confirmed, %v estimated; the ledger has %+v", c.Confirmed, c.Estimated, want)
	}
	if len(c.Code) != 26 || c.Name != "Ada Lovelace" || !slices.Equal(slices.Sorted(slices.Values(c.Projects)), []string{"A", "B"}) {
		t.Errorf("certificate %+v", c)
	}
	got, err := s.Public.Certificate(ctx, c.Code)
	if err != nil {
		t.Fatal(err)
	}
	if got.Code != c.Code || !got.From.Equal(from) || !got.To.Equal(through) || !near(got.Confirmed, c.Confirmed) ||
		got.Language != "de" || !slices.Equal(got.Projects, c.Projects) {
		t.Errorf("read back %+v, issued %+v", got, c)
	}
	guessed := "a" + c.Code[1:] // the code with its first letter changed
	if guessed == c.Code {
		guessed = "b" + c.Code[1:]
	}
	for _, code := range []string{guessed, "", "abc", c.Code + "a", "../../etc/passwd"} {
		if _, err := s.Public.Certificate(ctx, code); !errors.Is(err, accounting.ErrNotFound) {
			t.Errorf("code %q: %v", code, err)
		}
	}
	if err := s.Public.WithdrawCertificate(ctx, bob.ID, c.Code); !errors.Is(err, accounting.ErrNotFound) {
		t.Errorf("Bob withdrawing Ada's certificate: %v", err)
	}
	if _, err := s.Public.Certificate(ctx, c.Code); err != nil {
		t.Errorf("after Bob's attempt: %v", err)
	}
	if err := s.Public.WithdrawCertificate(ctx, ada.ID, c.Code); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Public.Certificate(ctx, c.Code); !errors.Is(err, accounting.ErrWithdrawn) || got.Name != "" {
		t.Errorf("withdrawn certificate: %v, %+v, want ErrWithdrawn and nothing of it", err, got)
	}
	list, err := s.Public.Certificates(ctx, ada.ID)
	if err != nil || len(list) != 1 || list[0].WithdrawnAt == nil {
		t.Errorf("Ada's list: %+v, %v", list, err)
	}
}

// Bad names and days are messages on their fields, and issue nothing.
func TestCertificateBadInput(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, ada, _, through := publicFixture(t)
	day := func(d int) time.Time { return through.AddDate(0, 0, d) }
	for _, tt := range []struct {
		req   accounting.CertificateRequest
		field string
	}{
		{accounting.CertificateRequest{Name: "Ada", From: day(0), To: day(-1)}, "from"},
		{accounting.CertificateRequest{Name: "Ada", From: day(-1), To: day(1)}, "to"},
		{accounting.CertificateRequest{Name: "Ada", From: day(-11 * 366), To: day(0)}, "from"},
		{accounting.CertificateRequest{Name: "  ", From: day(-1), To: day(0)}, "name"},
		{accounting.CertificateRequest{Name: "Ada\x01", From: day(-1), To: day(0)}, "name"},
	} {
		_, err := s.Public.IssueCertificate(ctx, ada.ID, tt.req, through)
		var invalid *accounting.ValidationError
		if !errors.As(err, &invalid) || invalid.Fields[tt.field].IsZero() {
			t.Errorf("%+v: %v, want a message on %s", tt.req, err, tt.field)
		}
	}
	if list, err := s.Public.Certificates(ctx, ada.ID); err != nil || len(list) != 0 {
		t.Errorf("issued after bad input: %v, %v", list, err)
	}
}

// The leaderboards list only public profiles that ticked "list me", by
// the rollups' confirmed credit, overall and per science area.
func TestLeaderboards(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, ada, bob, through := publicFixture(t)
	for _, set := range []struct {
		id int64
		p  accounting.PublicProfile
	}{
		{ada.ID, accounting.PublicProfile{Handle: "ada-l", Public: true, ListMe: true}},
		{bob.ID, accounting.PublicProfile{Handle: "bob-b", Public: true}},
	} {
		if err := s.Public.SetPublicProfile(ctx, set.id, set.p); err != nil {
			t.Fatal(err)
		}
	}
	b, err := s.Public.Leaderboards(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := ledgerTotals(t, s, ada.ID, time.Time{}, through)
	if len(b.AllTime.Overall) != 1 || b.AllTime.Overall[0].Handle != "ada-l" || !near(b.AllTime.Overall[0].Confirmed, want.Confirmed) {
		t.Errorf("all time %+v, want ada-l alone with %v", b.AllTime.Overall, want.Confirmed)
	}
	if len(b.Last30.Areas[9]) != 1 || len(b.Last30.Areas[1]) != 1 || len(b.Last30.Areas[6]) != 0 {
		t.Errorf("areas of the last 30 days: %+v", b.Last30.Areas)
	}
	// Listed and then taken off the boards: Ada is gone from the next
	// answer; Bob is there once the computation his listing started ends.
	if err := s.Public.SetPublicProfile(ctx, bob.ID, accounting.PublicProfile{Handle: "bob-b", Public: true, ListMe: true}); err != nil {
		t.Fatal(err)
	}
	if err := s.Public.SetPublicProfile(ctx, ada.ID, accounting.PublicProfile{Handle: "ada-l", ListMe: true}); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if b, err = s.Public.Leaderboards(ctx); err != nil {
			t.Fatal(err)
		}
		for _, e := range b.AllTime.Overall {
			if e.Handle == "ada-l" {
				t.Fatalf("Ada is listed after she went private: %+v", b.AllTime.Overall)
			}
		}
		if len(b.AllTime.Overall) == 1 || time.Now().After(deadline) {
			break
		}
	}
	if len(b.AllTime.Overall) != 1 || b.AllTime.Overall[0].Handle != "bob-b" {
		t.Errorf("after Ada went private and Bob listed: %+v", b.AllTime.Overall)
	}
}

// A certificate covers the days its figures cover: asked for days after
// the last one the rollups hold, it stops at that day (issue 45, item 5),
// and a span that starts after it is refused on its first day.
func TestCertificateStopsAtSettledDay(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, ada, _, through := publicFixture(t)
	today := through.AddDate(0, 0, 3)
	from := through.AddDate(0, 0, -9)
	c, err := s.Public.IssueCertificate(ctx, ada.ID,
		accounting.CertificateRequest{Name: "Ada", From: from, To: today, Language: "en"}, today)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Public.Certificate(ctx, c.Code)
	if err != nil {
		t.Fatal(err)
	}
	if !c.To.Equal(through) || !got.To.Equal(through) || !got.From.Equal(from) {
		t.Errorf("asked for %s to %s with figures through %s: issued to %s, kept %s to %s",
			from.Format(time.DateOnly), today.Format(time.DateOnly), through.Format(time.DateOnly),
			c.To.Format(time.DateOnly), got.From.Format(time.DateOnly), got.To.Format(time.DateOnly))
	}
	_, err = s.Public.IssueCertificate(ctx, ada.ID,
		accounting.CertificateRequest{Name: "Ada", From: through.AddDate(0, 0, 1), To: today, Language: "en"}, today)
	var invalid *accounting.ValidationError
	if !errors.As(err, &invalid) || invalid.Fields["from"].IsZero() {
		t.Errorf("a span after the settled days: %v, want a message on from", err)
	}
}

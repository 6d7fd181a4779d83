package reconcile_test

import (
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/boinc"
)

// testOptions hash passwords at bcrypt's lowest cost: the default costs
// most of a second a hash under the race detector.
var testOptions = accounting.Options{PasswordCost: bcrypt.MinCost}

// joinRequest is the RPC of a computer joining Cobble as the volunteer
// email, who gives password.
func joinRequest(email, password, cpid string) accounting.SyncRequest {
	return accounting.SyncRequest{
		Email: email, PasswordHash: boinc.PasswordHash(password, email), Now: time.Now(),
		Host: accounting.HostReport{CPID: cpid, Platforms: []string{"x86_64-pc-linux-gnu"}, NCPUs: 2, PFPOps: 1e9},
	}
}

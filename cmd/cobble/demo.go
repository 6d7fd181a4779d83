package main

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/accounting/demodata"
)

// demoComputers are the demo volunteer's computers, one with a GPU.
var demoComputers = []demodata.Computer{
	{Name: "studio-desktop", Platform: "x86_64-pc-linux-gnu", OSName: "Linux Debian", PModel: "AMD Ryzen 7 5800X",
		ClientVersion: "8.0.4", NCPUs: 16, PFPOps: 4.5e9, GPUs: 1, GPUPeakFLOPS: 1.2e13},
	{Name: "kitchen-laptop", Platform: "windows_x86_64", OSName: "Microsoft Windows 11", PModel: "Intel Core i5-1235U",
		ClientVersion: "7.24.1", NCPUs: 8, PFPOps: 3.1e9},
	{Name: "old-mac-mini", Platform: "x86_64-apple-darwin", OSName: "Darwin", PModel: "Intel Core i5-4278U",
		ClientVersion: "7.20.5", NCPUs: 4, PFPOps: 2.2e9},
}

// demoHistoryProjects are the catalog entries the demo computers work for.
var demoHistoryProjects = []string{"https://einsteinathome.org/", "https://boinc.bakerlab.org/rosetta/",
	"https://www.worldcommunitygrid.org/"}

// seedHistory gives the demo volunteer 120 days of history (with a counter
// reset, a clamped claim and confirmed credit up to 3 days ago) unless
// they have computers already.
func seedHistory(ctx context.Context, store *accounting.Store, pool *pgxpool.Pool) error {
	u, err := store.Accounts.Login(ctx, demoVolunteer, demoVolunteerPassword)
	if errors.Is(err, accounting.ErrBadPassword) || errors.Is(err, accounting.ErrUnknownAccount) {
		return nil // the demo volunteer was changed: leave them alone
	}
	if err != nil {
		return err
	}
	catalog, err := store.Catalog.Projects(ctx)
	if err != nil {
		return err
	}
	var ids []int64
	for _, p := range catalog {
		if slices.Contains(demoHistoryProjects, p.URL) {
			ids = append(ids, p.ID)
		}
	}
	_, err = demodata.Seed(ctx, pool, demodata.Spec{UserID: u.ID, Computers: demoComputers, Projects: ids,
		Days: 120, End: store.Ledger.Today(time.Now(), u.TimeZone), ConfirmedLag: 3, Events: true})
	return err
}

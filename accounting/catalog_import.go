package accounting

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/cobble-am/cobble/boinc"
	"github.com/cobble-am/cobble/internal/locale"
)

// ImportProjects adds the projects of a BOINC all_projects_list.xml file to
// the catalog, paused, with no authenticator yet: name, URL, description,
// science area, platforms and keywords where the file has them. Projects
// the catalog has (by BOINC's URL rules) are left alone; entries that are
// not valid are listed in the summary, not fatal. A file that is not XML is
// a ValidationError. Everything added and one audit entry go in one
// transaction.
func (s *CatalogStore) ImportProjects(ctx context.Context, who Actor, data []byte) (ImportSummary, error) {
	var sum ImportSummary
	list, err := boinc.ParseProjectList(data, MaxImportEntries)
	if errors.Is(err, boinc.ErrNotProjectList) || (err != nil && len(list) == 0) {
		return sum, op("import projects", &ValidationError{Fields: map[string]locale.Msg{
			"file": locale.Text("This is not a BOINC all_projects_list.xml file: " + err.Error())}})
	}
	if err != nil {
		sum.Broken = err.Error()
	}
	broken := sum.Broken
	err = s.tx(ctx, func(tx pgx.Tx) error {
		sum = ImportSummary{Broken: broken} // afresh if the transaction is run again
		for _, lp := range list {
			if err := importOne(ctx, tx, lp, &sum); err != nil {
				return err
			}
		}
		return audit(ctx, tx, who, AuditProjectImport, fmt.Sprintf("%d entries", len(list)), nil,
			map[string]any{"added": sum.Added, "existing": len(sum.Existing), "malformed": sum.Malformed})
	})
	s.forgetCatalog()
	return sum, op("import projects", err)
}

// importOne adds one listed project, or notes why not.
func importOne(ctx context.Context, tx pgx.Tx, lp boinc.ListedProject, sum *ImportSummary) error {
	p := Project{Name: lp.Name, URL: lp.URL, Description: lp.Description, Platforms: lp.Platforms,
		Keywords: listedKeywords(lp.Keywords), Status: StatusPaused,
		Area: listedArea(lp)}
	label := fmt.Sprintf("#%d", lp.Position)
	if lp.Name != "" {
		label += " " + lp.Name
	}
	if err := p.Validate(); err != nil {
		var invalid *ValidationError
		if errors.As(err, &invalid) {
			sum.Malformed = append(sum.Malformed, label+": "+importProblem(lp, invalid))
			return nil
		}
		return err
	}
	rows, _ := tx.Query(ctx, `
		INSERT INTO projects (url, name, description, keywords, platforms, resources,
			authenticator, stats_url, share, status, area)
		VALUES (@url, @name, @description, @keywords, @platforms, @resources,
			@authenticator, @stats_url, @share, @status, @area)
		ON CONFLICT DO NOTHING
		RETURNING id`, projectArgs(p))
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return err
	}
	entry := p.Name + " <" + p.URL + ">"
	if len(ids) == 0 {
		sum.Existing = append(sum.Existing, entry)
	} else {
		sum.Added = append(sum.Added, entry)
	}
	return nil
}

// listedKeywords reads the keyword ids of a listed project, keeping the
// ones Cobble's vocabulary knows.
func listedKeywords(text string) []int {
	var ids []int
	for _, f := range strings.Fields(text) {
		if got, err := ParseKeywords(f); err == nil {
			ids = append(ids, got...)
		}
	}
	return ids
}

// listedArea is "Specific (General)", or whichever of the two the entry has.
func listedArea(lp boinc.ListedProject) string {
	switch {
	case lp.SpecificArea != "" && lp.GeneralArea != "":
		return lp.SpecificArea + " (" + lp.GeneralArea + ")"
	case lp.SpecificArea != "":
		return lp.SpecificArea
	}
	return lp.GeneralArea
}

// importProblem says in a few words what is wrong with a listed project.
func importProblem(lp boinc.ListedProject, invalid *ValidationError) string {
	switch {
	case lp.URL == "":
		return "no master URL"
	case !invalid.Fields["url"].IsZero():
		return fmt.Sprintf("%q is not a master URL BOINC clients accept", lp.URL)
	case lp.Name == "":
		return "no name"
	}
	var parts []string
	for _, f := range []string{"name", "description", "area", "keywords", "platforms"} {
		if m := invalid.Fields[f]; !m.IsZero() {
			parts = append(parts, f+": "+m.String())
		}
	}
	return strings.Join(parts, "; ")
}

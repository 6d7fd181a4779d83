package accounting

import "fmt"

// MaxRequestProjects is the most projects Cobble looks at in one request.
// BOINC clients are attached to a few dozen at most; a longer list is cut,
// so that no request costs much more than an ordinary one.
const MaxRequestProjects = 100

// capProjects keeps the first report of each project (by the URL rule
// clients use), at most MaxRequestProjects of them, and counts the rest in
// req.ignored.
func (req SyncRequest) capProjects() SyncRequest {
	seen := make(map[string]bool, min(len(req.Projects), MaxRequestProjects))
	kept := make([]ProjectReport, 0, min(len(req.Projects), MaxRequestProjects))
	for _, p := range req.Projects {
		key := urlKey(p.URL)
		switch {
		case seen[key]:
		case len(kept) == MaxRequestProjects:
			req.ignored++
		default:
			seen[key] = true
			kept = append(kept, p)
		}
	}
	req.Projects = kept
	return req
}

// ignoredMessage tells the volunteer that part of the request was not read.
func ignoredMessage(n int) string {
	return fmt.Sprintf("Your computer listed more projects than Cobble reads in one request (%d); "+
		"it ignored %d of them.", MaxRequestProjects, n)
}

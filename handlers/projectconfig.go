package handlers

import (
	"net/http"

	"github.com/cobble-am/cobble/accounting"
	"github.com/cobble-am/cobble/boinc"
)

// ProjectConfig answers GET get_project_config.php, which BOINC Manager's
// wizard reads to learn that Cobble is an account manager.
func (a *Client) ProjectConfig(w http.ResponseWriter, r *http.Request) {
	cfg := boinc.ProjectConfig{Name: a.cfg.Name, MasterURL: a.cfg.BaseURL,
		MinPasswdLength: accounting.MinPasswordLength}
	writeXML(w, http.StatusOK, cfg.AppendXML(nil))
}

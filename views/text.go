package views

import (
	"context"

	"github.com/cobble-am/cobble/internal/locale"
)

// t writes catalog message id in the language ctx carries, its
// placeholders filled from name, value pairs (locale.Lang.T).
func t(ctx context.Context, id string, pairs ...any) string {
	return locale.From(ctx).T(id, pairs...)
}

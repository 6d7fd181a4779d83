package browsertest

import (
	"context"
	"testing"

	"github.com/chromedp/chromedp"
)

// SetWidth makes the tab's viewport width pixels wide (900 high), as on a
// phone or a desktop; later pages and screenshots use that width.
func (b *Browser) SetWidth(t testing.TB, width int) {
	t.Helper()
	b.do(t, "set the viewport width", func(ctx context.Context) error {
		_, err := chromedp.Run(ctx, chromedp.EmulateViewport(int64(width), viewportHeight))
		return err
	})
}

package handlers

import "context"

// requestIDKey is the context key of a request's id.
type requestIDKey struct{}

// WithRequestID returns ctx carrying id, the id of the request ctx serves:
// the id the log names the request by, which error pages show.
func WithRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey{}, id)
}

// RequestID returns the id of the request ctx serves, or "" when it has
// none.
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

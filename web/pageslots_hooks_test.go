package web

// HoldPageSlots takes every page slot of s, as pages at work would, and
// returns the function that gives them back.
func HoldPageSlots(s *Server) (release func()) {
	for range cap(s.slots) {
		s.slots <- struct{}{}
	}
	return func() {
		for range cap(s.slots) {
			<-s.slots
		}
	}
}

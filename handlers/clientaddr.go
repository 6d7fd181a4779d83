package handlers

import (
	"net/http"
	"net/netip"
	"slices"
	"strings"
)

// clientAddr returns the network the request comes from, as the limits
// count it: the peer's address, or, when the peer is a trusted proxy, the
// address X-Forwarded-For names, read right to left past trusted hops.
// An IPv4 address stands alone; an IPv6 address counts as its /64, which
// one client typically holds whole.
func (a *base) clientAddr(r *http.Request) netip.Prefix {
	peer, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return netip.Prefix{} // not a TCP peer (tests): one bucket for all
	}
	addr := peer.Addr().Unmap()
	if a.trusted(addr) {
		hops := forwardedFor(r)
		for i := len(hops) - 1; i >= 0; i-- {
			hop, err := netip.ParseAddr(hops[i])
			if err != nil {
				break // an unreadable hop: the last trusted one saw the client
			}
			addr = hop.Unmap()
			if !a.trusted(addr) {
				break
			}
		}
	}
	bits := 32
	if addr.Is6() {
		bits = 64
	}
	p, _ := addr.Prefix(bits)
	return p
}

// forwardedFor lists the addresses of every X-Forwarded-For header, in
// order.
func forwardedFor(r *http.Request) []string {
	var hops []string
	for _, h := range r.Header.Values("X-Forwarded-For") {
		for hop := range strings.SplitSeq(h, ",") {
			hops = append(hops, strings.TrimSpace(hop))
		}
	}
	return hops
}

func (a *base) trusted(addr netip.Addr) bool {
	return slices.ContainsFunc(a.cfg.TrustedProxies, func(p netip.Prefix) bool { return p.Contains(addr) })
}

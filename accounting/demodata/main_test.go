package demodata_test

import (
	"testing"

	"github.com/cobble-am/cobble/internal/loopback"
)

// TestMain keeps the tests on loopback: no name is looked up through DNS.
func TestMain(m *testing.M) { loopback.Main(m) }

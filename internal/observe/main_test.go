package observe

import (
	"testing"

	"github.com/sledge-bench/sledge/internal/testdb"
)

func TestMain(m *testing.M) { testdb.Main(m) }

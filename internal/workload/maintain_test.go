package workload

import "testing"

// TestMaintenanceStatements: the directives of a maintenance file's
// statement are taken out of its SQL, and the log names what it runs.
func TestMaintenanceStatements(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		text, sql, says, note, needs, rows string
	}{
		{"VACUUM (ANALYZE) {table};", "VACUUM (ANALYZE) {table};", "VACUUM (ANALYZE) of 9 tables", "", "", ""},
		{"-- note: no VACUUM here\n-- rows: status\nANALYZE TABLE {table};", "ANALYZE TABLE {table};", "ANALYZE TABLE of 9 tables", "no VACUUM here", "", "status"},
		{"-- needs: RELOAD\nFLUSH TABLES {tables}\n  FOR EXPORT;", "FLUSH TABLES {tables}\n  FOR EXPORT;", "FLUSH TABLES … FOR EXPORT of 9 tables", "", "RELOAD", ""},
		{"-- a plain comment stays\nCHECKPOINT;", "-- a plain comment stays\nCHECKPOINT;", "CHECKPOINT", "", "", ""},
	} {
		m := parseMaintenance(c.text)
		if m.sql != c.sql || m.says(9) != c.says || m.note != c.note || m.needs != c.needs || m.rows != c.rows {
			t.Errorf("%q: got sql %q, says %q, note %q, needs %q, rows %q", c.text, m.sql, m.says(9), m.note, m.needs, m.rows)
		}
	}
}

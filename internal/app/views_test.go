package app

import (
	"testing"

	"github.com/sledge-bench/sledge/internal/config"
	"github.com/sledge-bench/sledge/internal/jobs"
)

// TestViewValidate: a view the server could not render is refused naming
// the parameter, before any job is read.
func TestViewValidate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		v     View
		field string // "" for a valid view
	}{
		{View{Name: ViewShow, IDs: []int64{1}}, ""},
		{View{Name: ViewShow, IDs: []int64{1}, Section: "result", Format: FormatJSON}, ""},
		{View{Name: ViewCompare, IDs: []int64{1, 2}, Format: FormatHTML}, ""},
		{View{Name: ViewProfiles}, ""},
		{View{Name: ViewJobs, Filter: jobs.ListFilter{Kind: "run", Limit: 3}}, ""},
		{View{Name: ViewHlog, IDs: []int64{1}, Tx: "new_order"}, ""},
		{View{Name: "nonesuch"}, "name"},
		{View{Name: ViewDiff, IDs: []int64{1}}, "id"},
		{View{Name: ViewShow, IDs: []int64{0}}, "id"},
		{View{Name: ViewShow, IDs: []int64{1}, Section: "nonesuch"}, "section"},
		{View{Name: ViewDiff, IDs: []int64{1, 2}, Section: "result"}, "section"},
		{View{Name: ViewHlog, IDs: []int64{1}}, "tx"},
		{View{Name: ViewHlog, IDs: []int64{1}, Tx: "new_order", Format: FormatJSON}, "format"},
		{View{Name: ViewShow, IDs: []int64{1}, Format: FormatHTML}, "format"},
		{View{Name: ViewShow, IDs: []int64{1}, Format: "xml"}, "format"},
		{View{Name: ViewJobs, Filter: jobs.ListFilter{Status: "nonesuch"}}, "status"},
	} {
		err := tc.v.Validate()
		fe := config.Fields(err)
		switch {
		case tc.field == "" && err != nil:
			t.Errorf("%+v: %v", tc.v, err)
		case tc.field != "" && (len(fe) == 0 || fe[0].Field != tc.field):
			t.Errorf("%+v: %v, want an error of %s", tc.v, err, tc.field)
		}
	}
}

package config

import "testing"

func TestCacheDir(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		env  Env
		root bool
		want string // "" for an error
	}{
		{"XDG_CACHE_HOME", Env{XDGCacheHome: "/x", UserHome: "/home/u"}, false, "/x/sledge"},
		{"XDG_CACHE_HOME for root too", Env{XDGCacheHome: "/x", UserHome: "/root"}, true, "/x/sledge"},
		{"the home directory", Env{UserHome: "/home/u"}, false, "/home/u/.cache/sledge"},
		{"root: out of its private home", Env{UserHome: "/root"}, true, RootCacheDir},
		{"nothing to go by", Env{}, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := tt.env.CacheDir(tt.root)
			if tt.want == "" {
				if err == nil {
					t.Fatalf("CacheDir = %q, want an error", got)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("CacheDir = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

package app

import (
	"os"
	"runtime"
	"strconv"
	"strings"
)

// SystemInfo describes the client machine for the job record.
func SystemInfo(version string) map[string]string {
	host, _ := os.Hostname()
	info := map[string]string{
		"host":           host,
		"cpus":           strconv.Itoa(runtime.NumCPU()),
		"os":             runtime.GOOS + "/" + runtime.GOARCH,
		"go_version":     runtime.Version(),
		"sledge_version": version,
		"pid":            strconv.Itoa(os.Getpid()),
	}
	// Where the system says more (Linux), the CPU model, memory and OS name.
	for _, f := range []struct{ key, file, field string }{
		{"cpu_model", "/proc/cpuinfo", "model name"},
		{"memory", "/proc/meminfo", "MemTotal"},
		{"os_name", "/etc/os-release", "PRETTY_NAME"},
	} {
		if v := fileField(f.file, f.field); v != "" {
			info[f.key] = v
		}
	}
	return info
}

// fileField returns the value of the first "name: value" or name=value line
// of a file, or "" when there is none.
func fileField(path, name string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			k, v, ok = strings.Cut(line, "=")
		}
		if ok && strings.TrimSpace(k) == name {
			return strings.Trim(strings.TrimSpace(v), `"`)
		}
	}
	return ""
}

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunAtVersion: a program named with a version, as go run and go
// install take one (x640: "can only use path@version syntax with 'go
// get' and 'go install' in module-aware mode"), is fetched and built in
// its own module, its directives compiled, from any directory; svmc
// install names the binary after the package as go install does.
func TestRunAtVersion(t *testing.T) {
	const mod = "example.com/pubtool"
	proxy, bad := t.TempDir(), t.TempDir()
	publish(t, proxy, mod, "v1.2.0", map[string]string{
		"go.mod": "module " + mod + "\n\ngo 1.24\n",
		"main.go": `package main

import (
	"fmt"

	"example.com/pubtool/internal/sq"
)

func main() {
	s := 0
	//svm:pdo loops(i) reduction(+: s)
	for i := 0; i < 100; i++ {
		s += sq.Of(i)
	}
	fmt.Println("sum of squares", s)
}
`,
		"internal/sq/sq.go": "package sq\n\n// Of is x squared.\nfunc Of(x int) int { return x * x }\n",
	})
	publish(t, bad, mod, "v1.3.0", map[string]string{
		"go.mod": "module " + mod + "\n\ngo 1.24\n",
		"main.go": `package main

func main() {
	s := 0
	//svm:pdo loops(i) reduction(*: t)
	for i := 0; i < 100; i++ {
		s += i
	}
	println(s)
}
`})
	gobin := t.TempDir()
	t.Setenv("GOPROXY", "file://"+filepath.ToSlash(proxy)+",file://"+filepath.ToSlash(bad))
	t.Setenv("GOSUMDB", "off")
	t.Setenv("GOMODCACHE", filepath.Join(t.TempDir(), "modcache"))
	t.Setenv("GOFLAGS", "-modcacherw") // the test's cleanup removes the cache
	t.Setenv("GOBIN", gobin)
	here := t.TempDir() // no module: go run pkg@version needs none
	tr := filepath.Join(here, "t.sddf")
	res := runSvmc(t, here, "run", "-n", "2", "--trace", tr, mod+"@v1.2.0")
	if res.code != 0 || res.stdout != "sum of squares 328350\n" || res.stderr != "" {
		t.Fatalf("svmc run %s@v1.2.0: exit %d, %q %q", mod, res.code, res.stdout, res.stderr)
	}
	// The pdo ran on both processors: each has its pdo-work record.
	works := 0
	for _, r := range readTrace(t, tr) {
		if r.Desc.Name == "pdo-work" && r.Int("iterations") > 0 {
			works++
		}
	}
	if works != 2 {
		t.Errorf("%d processors worked in the pdo; want 2", works)
	}
	if res := runSvmc(t, here, "install", mod+"@latest"); res.code != 0 || res.stderr != "" {
		t.Fatalf("svmc install: exit %d, %q", res.code, res.stderr)
	}
	c := exec.Command(filepath.Join(gobin, "pubtool"))
	c.Env = append(os.Environ(), "SVMC_NPROCS=3")
	if out, err := c.CombinedOutput(); err != nil || string(out) != "sum of squares 328350\n" {
		t.Errorf("the installed pubtool: %v %q", err, out)
	}
	for _, c := range []struct{ arg, want string }{
		{mod + "/internal/sq@v1.2.0", "svmc: " + mod + "/internal/sq@v1.2.0: package " + mod + "/internal/sq is not a package main; svmc runs and installs programs\n"},
		{mod + "/nosuch@v1.2.0", "does not contain package " + mod + "/nosuch"},
		{mod + "@v9.9.9", "svmc: " + mod + "@v9.9.9: "},
		// A mistake in its directives is named in the module cache's file.
		{mod + "@v1.3.0", "/" + mod + "@v1.3.0/main.go:5:"},
	} {
		res := runSvmc(t, here, "run", c.arg)
		if res.code == 0 || !strings.Contains(res.stderr, c.want) {
			t.Errorf("svmc run %s: exit %d, %q; want %q", c.arg, res.code, res.stderr, c.want)
		}
	}
}

// TestModMod: the scratch module that resolves pkg@version keeps the
// user's GOFLAGS but its -mod.
func TestModMod(t *testing.T) {
	for in, want := range map[string]string{
		"":                           "-mod=mod",
		"-modcacherw -mod=vendor -v": "-modcacherw -v -mod=mod",
		"--mod=readonly":             "-mod=mod",
	} {
		if got := modMod(in); got != want {
			t.Errorf("modMod(%q) = %q, want %q", in, got, want)
		}
	}
}

package main

import (
	"archive/zip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestPublishedLibrary: a library with a pdo, published as a module and
// required by version (read from the module cache, where a build overlay
// may not replace files), is compiled with the program from a copy in
// svmc's cache, in a module as in a workspace; before, its pdo ran as plain
// serial Go without a word. The module comes from a file proxy of the
// test's own.
func TestPublishedLibrary(t *testing.T) {
	files := publishLibrary(t)
	app := map[string]string{
		"app/go.mod":  strings.Replace(files["app/go.mod"], "v0.0.0", "v1.0.0", 1),
		"app/main.go": files["app/main.go"],
	}
	for _, ws := range []bool{false, true} {
		name := "module"
		if ws {
			name = "workspace"
		}
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			if ws {
				writeWorkspace(t, root, app, "./app")
			} else {
				writeFiles(t, root, app)
			}
			tidy := exec.Command("go", "mod", "tidy")
			tidy.Dir = filepath.Join(root, "app")
			if out, err := tidy.CombinedOutput(); err != nil {
				t.Fatalf("go mod tidy: %v\n%s", err, out)
			}
			tr := filepath.Join(t.TempDir(), "t.sddf")
			res := runSvmc(t, filepath.Join(root, "app"), "run", "-n", "2", "--trace", tr, ".")
			if res.code != 0 || res.stdout != "328350\n" {
				t.Fatalf("exit %d, stdout %q, stderr %s", res.code, res.stdout, res.stderr)
			}
			// Named by the module cache's file, not the build's copy.
			if res := runSvmc(t, root, "report", tr); !strings.Contains(res.stdout, "example.com/lib@v1.0.0/lib.go:6") || strings.Contains(res.stdout, "deps/") {
				t.Errorf("the library's pdo is not in the report, named by its file in the module cache:\n%s", res.stdout)
			}
		})
	}
	// The copy is svmc's cache's, made once; one changed behind svmc's
	// back is made again, not compiled.
	cache, _ := os.UserCacheDir()
	copies, _ := filepath.Glob(filepath.Join(cache, "svmc", "deps", "module-lib@v1.0.0-*", "lib.go"))
	if len(copies) != 1 {
		t.Fatalf("copies of the library in svmc's cache: %v, want one", copies)
	}
	if err := os.WriteFile(copies[0], []byte("package lib\n\nfunc SumSq(n int) int { return -1 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	writeFiles(t, root, app)
	tidy := exec.Command("go", "mod", "tidy")
	tidy.Dir = filepath.Join(root, "app")
	if out, err := tidy.CombinedOutput(); err != nil {
		t.Fatalf("go mod tidy: %v\n%s", err, out)
	}
	if res := runSvmc(t, filepath.Join(root, "app"), "run", "-n", "2", "."); res.code != 0 || res.stdout != "328350\n" {
		t.Fatalf("after the copy was changed: exit %d, stdout %q, stderr %s", res.code, res.stdout, res.stderr)
	}
}

// publishLibrary publishes libraryModules's lib as example.com/lib v1.0.0
// through a file proxy of the test's own, which the go command uses with a
// module cache of the test's own, and returns libraryModules's files.
func publishLibrary(t *testing.T) map[string]string {
	files := libraryModules("")
	proxy := filepath.Join(t.TempDir(), "proxy")
	publish(t, proxy, "example.com/lib", "v1.0.0", map[string]string{"go.mod": files["lib/go.mod"], "lib.go": files["lib/lib.go"]})
	t.Setenv("GOPROXY", "file://"+filepath.ToSlash(proxy))
	t.Setenv("GOSUMDB", "off")
	t.Setenv("GOMODCACHE", filepath.Join(t.TempDir(), "modcache"))
	t.Setenv("GOFLAGS", "-modcacherw") // the test's cleanup removes the cache
	return files
}

// publish writes module path at version into the file proxy at dir (the
// GOPROXY protocol's files: list, .info, .mod and .zip).
func publish(t *testing.T, dir, path, version string, files map[string]string) {
	t.Helper()
	at := filepath.Join(dir, filepath.FromSlash(path), "@v")
	if err := os.MkdirAll(at, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(at, version+".zip"))
	if err != nil {
		t.Fatal(err)
	}
	z := zip.NewWriter(f)
	for name, text := range files {
		w, err := z.Create(path + "@" + version + "/" + name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(text))
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	writeFiles(t, at, map[string]string{
		"list":            version + "\n",
		version + ".info": `{"Version":"` + version + `","Time":"2026-01-01T00:00:00Z"}`,
		version + ".mod":  files["go.mod"],
	})
}

// writeFiles writes files (by slash-separated name) under root.
func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestVendoredOffline: a module that vendors its dependencies (go mod
// vendor) builds and runs under svmc without the module cache and without
// a module proxy, as go build does, and its vendored library's pdo runs
// in parallel; before, svmc built from the module cache (-mod=mod) and
// failed offline.
func TestVendoredOffline(t *testing.T) {
	files := publishLibrary(t)
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"app/go.mod":  strings.Replace(files["app/go.mod"], "v0.0.0", "v1.0.0", 1),
		"app/main.go": files["app/main.go"],
	})
	app := filepath.Join(root, "app")
	for _, args := range [][]string{{"mod", "tidy"}, {"mod", "vendor"}} {
		cmd := exec.Command("go", args...)
		cmd.Dir = app
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	// Offline: no proxy, an empty module cache.
	t.Setenv("GOPROXY", "off")
	t.Setenv("GOMODCACHE", filepath.Join(t.TempDir(), "empty"))
	tr := filepath.Join(t.TempDir(), "t.sddf")
	res := runSvmc(t, app, "run", "-n", "2", "--trace", tr, ".")
	if res.code != 0 || res.stdout != "328350\n" {
		t.Fatalf("exit %d, stdout %q, stderr %s", res.code, res.stdout, res.stderr)
	}
	if rep := runSvmc(t, root, "report", tr); !strings.Contains(rep.stdout, "vendor/example.com/lib/lib.go:6") {
		t.Errorf("the vendored library's pdo is not in the report:\n%s", rep.stdout)
	}
}

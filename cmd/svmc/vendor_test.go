package main

import "testing"

// TestRebaseReplacements: a vendored module replaced by a relative
// directory is listed in modules.txt relative to the module's directory;
// in the build's workspace the go command compares it with the go.mod's
// replacement made relative to the workspace's directory ("inconsistent
// vendoring: example.com/lib: is replaced by ../lib in go.mod, but marked
// as replaced by ../lib in vendor/modules.txt" before, x499). Versions and
// absolute directories stay as they are.
func TestRebaseReplacements(t *testing.T) {
	in := "# example.com/lib v0.0.0 => ../lib\n## explicit; go 1.24\nexample.com/lib\n" +
		"# example.com/lib => ../lib\n" +
		"# example.com/in v0.0.0 => ./third_party/in\n" +
		"# example.com/abs v0.0.0 => /srv/abs\n" +
		"# example.com/ver v1.0.0 => example.com/fork v1.2.0\n"
	want := "# example.com/lib v0.0.0 => ../../home/u/lib\n## explicit; go 1.24\nexample.com/lib\n" +
		"# example.com/lib => ../../home/u/lib\n" +
		"# example.com/in v0.0.0 => ../../home/u/app/third_party/in\n" +
		"# example.com/abs v0.0.0 => /srv/abs\n" +
		"# example.com/ver v1.0.0 => example.com/fork v1.2.0\n"
	if got := string(rebaseReplacements([]byte(in), "/home/u/app", "/tmp/work")); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if got := string(rebaseReplacements([]byte("# example.com/lib v0.0.0 => ../lib\n"), "/w/app", "/w/app/sub")); got != "# example.com/lib v0.0.0 => ../../lib\n" {
		t.Errorf("got %q", got)
	}
	if got := string(rebaseReplacements([]byte("# example.com/lib v0.0.0 => ./lib\n"), "/w", "/w")); got != "# example.com/lib v0.0.0 => ./lib\n" {
		t.Errorf("got %q", got)
	}
}

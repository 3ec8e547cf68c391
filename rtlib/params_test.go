package rtlib

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// withEnv replaces the environment of loadSettings by env for the test.
func withEnv(t *testing.T, env map[string]string) {
	t.Helper()
	old := lookupEnv
	lookupEnv = func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	t.Cleanup(func() { lookupEnv = old })
}

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(text), 0o666); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestParamsFromEnv(t *testing.T) {
	dir := t.TempDir()
	tr := filepath.Join(dir, "t.sddf")
	info := filepath.Join(dir, "info.txt")
	withEnv(t, map[string]string{"SVMC_NPROCS": "3", "SVMC_TRACE": tr, "SVMC_FORMAT": "ascii", "SVMC_STATS": "yes",
		"SVMC_TRACEBUF": "4k", "SVMC_STDERR": "common:" + filepath.Join(dir, "err.txt"), "SVMC_INFO": "file:" + info,
		"SVMC_STOP_WAIT": "300ms", "SVMC_DEADLOCK_MS": "0", "SVMC_LENIENT": "on"})
	par, closeAll, err := ParamsFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	if par.NProcs != 3 || par.TraceName != tr || par.Trace == nil || par.Stage != 3 || !par.Stats || par.BufSize != 4096 ||
		par.UserStderr.Mode != OutCommon || par.UserStdout.Mode != OutProc0 || par.StopWait != 300*time.Millisecond ||
		par.Deadlock >= 0 || !par.Lenient {
		t.Errorf("params %+v", par)
	}
	par.Stderr.Write([]byte("hello\n"))
	if err := closeAll(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(info); string(b) != "hello\n" {
		t.Errorf("info file %q", b)
	}
	if _, err := os.Stat(tr); err != nil {
		t.Error(err)
	}
}

// TestFatInfoNoOpen: an info file that cannot be opened stops the run,
// unless fat_info_no_open is 0 (Lib-DVM's FatInfoNoOpen): then the run
// goes on with the informational messages on standard error.
func TestFatInfoNoOpen(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "no", "such", "dir", "info.txt")
	withEnv(t, map[string]string{"SVMC_INFO": "file:" + bad})
	if _, closeAll, err := ParamsFromEnv(); err == nil {
		closeAll()
		t.Error("an info file that cannot be opened did not stop the run")
	}
	withEnv(t, map[string]string{"SVMC_INFO": "file:" + bad, "SVMC_FAT_INFO_NO_OPEN": "0"})
	par, closeAll, err := ParamsFromEnv()
	if err != nil {
		t.Fatalf("with fat_info_no_open 0: %v", err)
	}
	defer closeAll()
	if par.Stderr != os.Stderr {
		t.Errorf("informational messages go to %v, want standard error", par.Stderr)
	}
}

// TestInfoSepFile: with info_sep_file the info file gets each processor's
// messages together, in processor order, whatever order they came in.
func TestInfoSepFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "info.txt")
	withEnv(t, map[string]string{"SVMC_INFO": "file:" + path, "SVMC_INFO_SEP_FILE": "1", "SVMC_NPROCS": "3"})
	par, closeAll, err := ParamsFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	err = Run(testProg(), par, func(p *Proc) {
		p.Replicated(1, 1, func(q *Proc) {
			time.Sleep(time.Duration(3-q.ID()) * 5 * time.Millisecond) // processor 2 first
			RtlMPrintf("first from %d\n", q.ID())
			RtlMPrintf("second from %d\n", q.ID())
		})
	})
	if cerr := closeAll(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	want := "first from 0\nsecond from 0\nfirst from 1\nsecond from 1\nfirst from 2\nsecond from 2\n"
	if string(data) != want {
		t.Errorf("info file %q, want %q", data, want)
	}
}

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

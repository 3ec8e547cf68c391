package rtlib

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/svmc/svmc/rtlib/internal/params"
)

// TestChildFiles: a run renames the files its parent run writes (here its
// trace) and keeps the others' names: one of its own, and a device, which
// every process shares as it is; it names its files for its own children.
func TestChildFiles(t *testing.T) {
	defer func() { startedBy = 0 }()
	dir := t.TempDir()
	tr, own := filepath.Join(dir, "t.sddf"), filepath.Join(dir, "own.sddf")
	parent, _ := json.Marshal(parentRun{PID: 1, Files: []string{tr, "/dev/null"}})
	t.Setenv(runFilesVar, string(parent))
	v := &params.Values{Trace: tr, StatFile: "/dev/null", CPUProfile: own}
	childFiles(v)
	pid := strconv.Itoa(os.Getpid())
	if v.Trace != tr+".child-"+pid || v.StatFile != "/dev/null" || v.CPUProfile != own || startedBy != 1 {
		t.Errorf("trace %s, stat file %s, profile %s, started by %d", v.Trace, v.StatFile, v.CPUProfile, startedBy)
	}
	var mine parentRun
	if err := json.Unmarshal([]byte(os.Getenv(runFilesVar)), &mine); err != nil || mine.PID != os.Getpid() ||
		len(mine.Files) != 2 || mine.Files[0] != v.Trace || mine.Files[1] != own {
		t.Errorf("%s=%s (%v)", runFilesVar, os.Getenv(runFilesVar), err)
	}
}

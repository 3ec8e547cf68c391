package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"github.com/svmc/svmc/trace"
)

// svmc run --mpi and svmc build --mpi (issue 16): the program built with
// the MPI transport (build tag mpi: cgo against the system's MPI through
// pkg-config) and launched with mpirun, each rank one processor.

// mpiGoFlags are the go build flags of the MPI transport.
var mpiGoFlags = []string{"-tags", "mpi"}

// mpiMissing is the remedy when the system lacks what --mpi needs.
const mpiMissing = "install OpenMPI (apt-get install openmpi-bin libopenmpi-dev) or MPICH, with its pkg-config file"

// checkMPI says what is missing for building (and, with launch, running)
// with MPI.
func checkMPI(launch bool) error {
	if _, err := exec.LookPath("pkg-config"); err != nil {
		return fmt.Errorf("--mpi: pkg-config is not installed; %s", mpiMissing)
	}
	if err := exec.Command("pkg-config", "--exists", "mpi").Run(); err != nil {
		return fmt.Errorf("--mpi: pkg-config finds no MPI library (pkg-config mpi); %s", mpiMissing)
	}
	if _, err := exec.LookPath("gcc"); err != nil {
		if _, err := exec.LookPath("cc"); err != nil {
			return fmt.Errorf("--mpi: no C compiler (gcc) for cgo; apt-get install gcc")
		}
	}
	if launch {
		if _, err := exec.LookPath("mpirun"); err != nil {
			return fmt.Errorf("--mpi: mpirun is not installed; %s", mpiMissing)
		}
	}
	return nil
}

// checkHostfile reads an OpenMPI hostfile ("host [slots=N]
// [max_slots=N]" per line, # comments) and says where it is wrong.
func checkHostfile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("--hostfile: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	hosts := 0
	for line := 1; sc.Scan(); line++ {
		text, _, _ := strings.Cut(sc.Text(), "#")
		fields := strings.Fields(text)
		if len(fields) == 0 {
			continue
		}
		hosts++
		for _, kv := range fields[1:] {
			k, v, ok := strings.Cut(kv, "=")
			switch {
			case !ok:
				return fmt.Errorf("%s:%d: %q: want slots=N or max_slots=N after the host name", path, line, kv)
			case k != "slots" && k != "max_slots" && k != "max-slots":
				return fmt.Errorf("%s:%d: unknown key %q: want slots or max_slots", path, line, k)
			}
			if n, err := strconv.Atoi(v); err != nil || n < 1 {
				return fmt.Errorf("%s:%d: %s=%s: want a positive number", path, line, k, v)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	if hosts == 0 {
		return fmt.Errorf("%s: no host in the hostfile", path)
	}
	return nil
}

// mpirunCommand launches exe as n ranks. The flags are those a run on one
// machine needs with OpenMPI 4 (more ranks than cores, no core binding:
// bound, a rank's Go runtime gets one core; root in containers), and the
// svmc parameters of env are exported to every rank (remote ones too).
func mpirunCommand(n int, hostfile, exe string, env, progArgs []string) *exec.Cmd {
	args := []string{"-np", strconv.Itoa(n), "--oversubscribe", "--bind-to", "none"}
	if os.Geteuid() == 0 {
		args = append(args, "--allow-run-as-root")
	}
	if hostfile != "" {
		args = append(args, "--hostfile", hostfile)
	}
	for _, kv := range env {
		if name, _, _ := strings.Cut(kv, "="); strings.HasPrefix(name, "SVMC_") {
			args = append(args, "-x", name)
		}
	}
	args = append(append(args, exe), progArgs...)
	cmd := exec.Command("mpirun", args...)
	cmd.Env = env
	return cmd
}

// ranksOf is the number of ranks of svmc run --mpi: -n, else SVMC_NPROCS.
func ranksOf(changed bool, nprocs int) (int, error) {
	if changed {
		return nprocs, nil
	}
	if v := os.Getenv("SVMC_NPROCS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return 0, fmt.Errorf("SVMC_NPROCS=%s: want a positive number of processors", v)
		}
		return n, nil
	}
	return 1, nil
}

// mergeRankTraces merges the ranks' traces TRACE.rank0 … into TRACE
// (trace.MergeRanks) and removes them; it leaves them where one is missing
// or the merge fails, and says why.
func mergeRankTraces(path string, n int) error {
	var srcs []io.ReadSeeker
	var names []string
	partial := make([]bool, n)
	var killed []string
	for k := range n {
		name := fmt.Sprintf("%s.rank%d", path, k)
		f, err := os.Open(name)
		if errors.Is(err, fs.ErrNotExist) {
			// A rank killed before it completed its trace (kill -9, the
			// machine's OOM killer) leaves what it flushed.
			if ps := partialsOf(name); len(ps) == 1 {
				name, partial[k] = ps[0], true
				f, err = os.Open(name)
				killed = append(killed, strconv.Itoa(k))
			}
		}
		if err != nil {
			return fmt.Errorf("the ranks' traces are not merged: %v", err)
		}
		defer f.Close()
		srcs = append(srcs, f)
		names = append(names, name)
	}
	if len(killed) > 0 {
		fmt.Fprintf(os.Stderr, "svmc: rank %s ended without completing its trace (killed); the merged trace has its records up to its last flush, on its own clock\n", strings.Join(killed, ", "))
	}
	out, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := trace.MergeRanksPartial(out, srcs, partial); err != nil {
		out.Close()
		os.Remove(path)
		return fmt.Errorf("the ranks' traces %s… are not merged: %v", names[0], err)
	}
	if err := out.Close(); err != nil {
		return err
	}
	for _, name := range names {
		os.Remove(name)
	}
	return nil
}

package params

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/svmc/svmc/internal/limits"
	"github.com/svmc/svmc/internal/safetext"
	"github.com/svmc/svmc/internal/suggest"
	"github.com/svmc/svmc/request"
)

// Setting is the text of a parameter's effective value and where it came
// from.
type Setting struct {
	Value, Source string
}

// Set is the effective parameters of a run: the typed values, the text and
// source of each, and the request file when one is named.
type Set struct {
	Values
	Texts       map[string]Setting
	ParamFile   string
	RequestFile *request.File // loaded when the request parameter is set
	// overridden holds the error of an environment variable's value until
	// a later source (the parameter file, a flag) sets the parameter: a
	// bad SVMC_NPROCS does not matter under svmc run -n 2.
	overridden map[string]error
}

// Get is the text of a parameter's effective value.
func (s *Set) Get(name string) string { return s.Texts[name].Value }

// set parses text into d's field and records it with its source; errAt
// turns a parse error into the error to report (nil: go on).
func (s *Set) set(d *Def, text, source string, errAt func(msg string) error) error {
	if err := d.set(&s.Values, text); err != nil {
		return errAt(err.Error())
	}
	s.Texts[d.Name] = Setting{text, source}
	delete(s.overridden, d.Name)
	return nil
}

// Load resolves the parameters from their sources; lookupEnv is
// os.LookupEnv (tests pass their own environment).
func Load(lookupEnv func(string) (string, bool)) (*Set, error) {
	s := &Set{Texts: map[string]Setting{}, overridden: map[string]error{}}
	for i := range Defs {
		d := &Defs[i]
		if err := s.set(d, d.Default, "default", func(msg string) error {
			return fmt.Errorf("svmc internal error: default of %s: %s", d.Name, msg)
		}); err != nil {
			return nil, err
		}
	}
	fromVars := func(name func(*Def) string, source string) error {
		for i := range Defs {
			d := &Defs[i]
			v, ok := lookupEnv(name(d))
			if !ok {
				continue
			}
			// A flag is named as the user typed it, not by its carrier variable.
			shown := name(d)
			if source == "flag" {
				shown = d.FlagName()
			}
			if err := s.set(d, v, source+" "+shown, func(msg string) error {
				if source == "flag" {
					return fmt.Errorf("%s %s: %s", d.FlagName(), v, msg)
				}
				s.overridden[d.Name] = fmt.Errorf("%s=%s: %s", name(d), v, msg)
				return nil
			}); err != nil {
				return err
			}
		}
		return nil
	}
	if err := fromVars((*Def).Env, "environment"); err != nil {
		return nil, err
	}
	file, _ := lookupEnv("SVMC_PARAMS")
	source := "SVMC_PARAMS=" + file
	if v, ok := lookupEnv("SVMC_FLAG_PARAMS"); ok {
		file, source = v, "--params "+v
	}
	if file != "" {
		s.ParamFile = file
		if err := s.readParamFile(file, source); err != nil {
			return nil, err
		}
	}
	if err := fromVars((*Def).Flag, "flag"); err != nil {
		return nil, err
	}
	for i := range Defs {
		if err := s.overridden[Defs[i].Name]; err != nil {
			return nil, err
		}
	}
	if err := s.applyRequest(); err != nil {
		return nil, err
	}
	return s, nil
}

// readParamFile reads a parameter file: "name = value" lines. All its
// errors are reported together; source says where the file was named.
func (s *Set) readParamFile(path, source string) error {
	data, err := limits.ReadFile(path, limits.ParamFile, "a parameter file")
	if err != nil {
		return fmt.Errorf("%s: %v", source, err)
	}
	var errs []string
	for i, line := range strings.Split(string(data), "\n") {
		ln := i + 1
		errAt := func(col int, msg string) {
			errs = append(errs, fmt.Sprintf("%s:%d:%d: %s", path, ln, col, msg))
		}
		line = strings.TrimSuffix(line, "\r")
		body := stripComment(line)
		if strings.TrimSpace(body) == "" {
			continue
		}
		nameCol := len(body) - len(strings.TrimLeft(body, " \t")) + 1
		eq := strings.IndexByte(body, '=')
		if eq < 0 {
			errAt(nameCol, "want name = value")
			continue
		}
		name := strings.TrimSpace(body[:eq])
		rest := body[eq+1:]
		valCol := eq + 2 + len(rest) - len(strings.TrimLeft(rest, " \t"))
		val := strings.TrimSpace(rest)
		if strings.HasPrefix(val, `"`) {
			u, err := strconv.Unquote(val)
			if err != nil {
				errAt(valCol, "bad quoted value "+val)
				continue
			}
			val = u
		}
		d, ok := Find(name)
		if !ok {
			switch strings.TrimPrefix(strings.ToLower(name), "svmc_") {
			case "params", "print_params":
				errAt(nameCol, fmt.Sprintf("%s cannot be set in a parameter file", name))
			default:
				errAt(nameCol, fmt.Sprintf("unknown parameter %q%s", name, Suggest(name)))
			}
			continue
		}
		s.set(d, val, fmt.Sprintf("parameter file %s:%d", path, ln), func(msg string) error {
			errAt(valCol, d.Name+": "+msg)
			return nil
		})
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "\n"))
	}
	return nil
}

// stripComment cuts a '#' comment that starts the line or follows a blank,
// outside a quoted value.
func stripComment(line string) string {
	inq := false
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case c == '"' && (i == 0 || line[i-1] != '\\'):
			inq = !inq
		case c == '#' && !inq && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t'):
			return line[:i]
		}
	}
	return line
}

// Suggest is the "did you mean" of a misspelt parameter name (or
// environment variable).
func Suggest(name string) string {
	return suggest.DidYouMean(strings.TrimPrefix(strings.ToLower(name), "svmc_"), Names(), false)
}

// applyRequest loads the request file and lets its CONFIG entries set the
// parameters still at their defaults. A CONFIG value is parsed and checked
// as the same parameter from any other source is.
func (s *Set) applyRequest() error {
	if s.Values.Request == "" {
		return nil
	}
	f, err := request.Load(s.Values.Request, nil)
	if err != nil {
		var el request.ErrorList
		if errors.As(err, &el) {
			return &RequestError{File: f, Errs: el, Lenient: s.Values.Lenient}
		}
		return fmt.Errorf("%s: %v", s.SourceName("request"), err)
	}
	s.RequestFile = f
	last := map[request.ConfigKey]*request.ConfigEntry{}
	walkConfig(f, func(e *request.ConfigEntry) { last[e.Key] = e })
	fromFile := func(name string, key request.ConfigKey) error {
		e := last[key]
		if e == nil || s.Texts[name].Source != "default" {
			return nil
		}
		d, _ := Find(name)
		return s.set(d, strconv.FormatInt(e.Value, 10), "request file "+e.ValuePos.String(), func(msg string) error {
			return fmt.Errorf("%s: %s: %s", e.ValuePos, d.Name, msg)
		})
	}
	for _, c := range []struct {
		name string
		key  request.ConfigKey
	}{{"stage", request.ConfigTraceStage}, {"tracebuf", request.ConfigTraceBufSize}, {"kernel_tracebuf", request.ConfigKernelTraceBufSize},
		{"throttle_calls", request.ConfigThrottleCalls}} {
		if err := fromFile(c.name, c.key); err != nil {
			return err
		}
	}
	if s.Texts["stage"].Source == "default" {
		d, _ := Find("stage")
		s.set(d, "0", "default (the request file sets no SVM_TraceStage)", func(string) error { return nil })
	}
	return nil
}

// RequestError is a request file's syntax errors, with the entries that
// parsed: the run checks their names against its program too
// (request.WithNames), which the parameters do not know.
type RequestError struct {
	File    *request.File
	Errs    request.ErrorList
	Lenient bool
}

func (e *RequestError) Error() string { return e.Errs.Error() }
func (e *RequestError) Unwrap() error { return e.Errs }

// walkConfig calls fn for every CONFIG entry of f and its included files in
// order.
func walkConfig(f *request.File, fn func(*request.ConfigEntry)) {
	seen := map[*request.File]bool{}
	var walk func(f *request.File)
	walk = func(f *request.File) {
		if f == nil || seen[f] {
			return
		}
		seen[f] = true
		for _, e := range f.Entries {
			switch e := e.(type) {
			case *request.ConfigEntry:
				fn(e)
			case *request.Include:
				walk(e.File)
			}
		}
		delete(seen, f)
	}
	walk(f)
}

// SourceName names where a parameter came from in error messages: its
// environment or flag variable, or the parameter name.
func (s *Set) SourceName(name string) string {
	src := s.Texts[name].Source
	for _, pre := range []string{"environment ", "flag "} {
		if v, ok := strings.CutPrefix(src, pre); ok {
			return v
		}
	}
	return name
}

// Print writes the effective parameters, each with its source, as a
// parameter file.
func (s *Set) Print(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "# svmc run-time parameters: name = value  # source")
	fmt.Fprintln(bw, "# precedence: default < request file CONFIG < environment < parameter file < flag (SVMC_FLAG_<NAME>)")
	if s.ParamFile != "" {
		fmt.Fprintf(bw, "# parameter file: %s\n", s.ParamFile)
	}
	width := 0
	for _, d := range Defs {
		width = max(width, len(d.Name))
	}
	for _, d := range Defs {
		v := s.Texts[d.Name]
		val := v.Value
		// Quoted also when it holds control characters: the parameter
		// file reads \x1b back, and a terminal shows the escape, not its effect.
		if val == "" || strings.ContainsAny(val, " \t#\"") || strconv.Quote(val) != `"`+val+`"` {
			val = strconv.Quote(val)
		}
		fmt.Fprintf(bw, "%-*s = %s  # %s\n", width, d.Name, val, safetext.Escape(v.Source))
	}
	return bw.Flush()
}

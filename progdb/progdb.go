// Package progdb is the program information file of svmc (DESIGN.md §5): the
// numbering of subprograms, directives, trace regions and shared variables
// with their source positions. The compiler writes it next to the
// instrumented code and embeds it in the binary, so that a trace can be
// analysed without the sources. Standard library only.
package progdb

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// Version is the format version this package writes and reads.
const Version = 1

// FileName is the name of the program information file in a compile output.
const FileName = "svminfo.json"

// Program is the whole program information file.
type Program struct {
	Version int    `json:"version"`
	Tool    string `json:"tool"`    // "svmc"
	Package string `json:"package"` // import path of the compiled package
	Name    string `json:"name"`    // package name
	// Files are the package's Go files, relative to the package directory,
	// sorted: the order that numbers the subprograms.
	Files       []string      `json:"files"`
	Subprograms []*Subprogram `json:"subprograms"`
}

// Pos is a source position; File is relative to the package directory.
type Pos struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Col  int    `json:"col"`
}

func (p Pos) String() string { return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col) }

// Subprogram is a function or method of the package. Number 1 is the first
// function of the first file; numbering follows the source order.
type Subprogram struct {
	Num        int          `json:"num"`
	Name       string       `json:"name"` // "F", or "T.M" for methods
	Pos        Pos          `json:"pos"`
	Main       bool         `json:"main,omitempty"`
	Directives []*Directive `json:"directives"`
	// Regions are the trace regions of the subprogram. Region 0 is the
	// subprogram itself; the others follow in textual order.
	Regions []*Region `json:"regions"`
	Shared  []*Var    `json:"shared,omitempty"`
}

// Directive is one //svm: directive, numbered from 1 in textual order within
// its subprogram.
type Directive struct {
	Num   int    `json:"num"`
	Kind  string `json:"kind"`
	Text  string `json:"text"`
	Pos   Pos    `json:"pos"`
	Label string `json:"label,omitempty"` // pdo label(...), trace_region or critical name
	// Template and Procs name the template and processor arrangement a
	// directive declares or uses.
	Template string `json:"template,omitempty"`
	Procs    string `json:"procs,omitempty"`
	// Vars classifies the variables of a parallel body (pdo only).
	Vars *VarClasses `json:"vars,omitempty"`
}

// VarClasses is the dataflow classification of the variables a parallel body
// uses. Names are sorted.
type VarClasses struct {
	Shared    []string `json:"shared,omitempty"`
	Private   []string `json:"private,omitempty"`
	Reduction []string `json:"reduction,omitempty"` // "op:name"
}

// Region is a trace region. Type is the name of trace.Region* ("subroutine",
// "pdo", "user", ...); Code is the number written in trace records.
type Region struct {
	Num       int    `json:"num"`
	Type      string `json:"type"`
	Code      int    `json:"code"`
	Label     string `json:"label,omitempty"`
	Parent    int    `json:"parent"`    // region number of the enclosing region; -1 for region 0
	Directive int    `json:"directive"` // directive that opens it; 0 for the subprogram
	Pos       Pos    `json:"pos"`
	End       Pos    `json:"end"`
}

// Var is a shared variable, numbered from 1 within its subprogram.
type Var struct {
	Num      int    `json:"num"`
	Name     string `json:"name"`
	Type     string `json:"type"`
	ElemSize int64  `json:"elem_size"`
	Pos      Pos    `json:"pos"`
}

// Marshal encodes p deterministically (indented JSON, trailing newline).
func Marshal(p *Program) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(p); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Read decodes a program information file and rejects versions it does not
// know. name is used in error messages.
func Read(r io.Reader, name string) (*Program, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return Unmarshal(data, name)
}

// Unmarshal is Read for bytes in memory.
func Unmarshal(data []byte, name string) (*Program, error) {
	var head struct {
		Version *int `json:"version"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("%s: not a program information file: %v", name, err)
	}
	if head.Version == nil {
		return nil, fmt.Errorf("%s: not a program information file: no version", name)
	}
	if *head.Version != Version {
		return nil, fmt.Errorf("%s: program information file version %d is not supported (this svmc reads version %d)", name, *head.Version, Version)
	}
	var p Program
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return &p, nil
}

// Sub returns subprogram num, or nil.
func (p *Program) Sub(num int) *Subprogram {
	if num >= 1 && num <= len(p.Subprograms) && p.Subprograms[num-1].Num == num {
		return p.Subprograms[num-1]
	}
	for _, s := range p.Subprograms {
		if s.Num == num {
			return s
		}
	}
	return nil
}

// Directive returns directive num of the subprogram, or nil.
func (s *Subprogram) Directive(num int) *Directive {
	if num >= 1 && num <= len(s.Directives) && s.Directives[num-1].Num == num {
		return s.Directives[num-1]
	}
	return nil
}

// SubByName returns the subprogram with the given name ("F" or "T.M"), or nil.
func (p *Program) SubByName(name string) *Subprogram {
	for _, s := range p.Subprograms {
		if s.Name == name {
			return s
		}
	}
	return nil
}

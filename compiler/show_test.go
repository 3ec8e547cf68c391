package compiler
import ("testing";"os")
func TestShow(t *testing.T) {
	p, err := Compile(Config{Dir: os.Getenv("D"), Pattern: "."})
	if p != nil { for _, d := range p.Diags { t.Log(d) } } else { t.Log(err) }
}

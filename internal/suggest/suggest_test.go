package suggest

import "testing"

func TestClosest(t *testing.T) {
	kw := []string{"barrier", "pdo", "template", "processors"}
	for _, c := range []struct {
		word string
		fold bool
		want string
	}{
		{"barier", false, "barrier"},
		{"BARIER", true, "barrier"},
		{"BARIER", false, ""},
		{"pd", false, "pdo"},
		{"foo", false, ""},
		{"tempalte", false, "template"}, // a transposition is one edit
		{"barrier", false, ""},          // the word itself is not suggested
	} {
		if got := Closest(c.word, kw, c.fold); got != c.want {
			t.Errorf("Closest(%q, fold=%v) = %q, want %q", c.word, c.fold, got, c.want)
		}
	}
	if d := Distance("kitten", "sitting"); d != 3 {
		t.Errorf("Distance = %d, want 3", d)
	}
}

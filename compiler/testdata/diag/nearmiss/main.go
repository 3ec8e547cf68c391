// Comments that look almost like directives are warned about: svmc would
// otherwise run the program serially without a word. Prose that mentions
// svm: with a blank after it is not.
package main

func main() {
	s := 0
	// svm:pdo loops(i) // want 2:`^warning: // svm:pdo loops\(i\) .* is an ordinary comment, not a directive: a directive is a line comment that begins exactly //svm:`
	for i := 0; i < 4; i++ {
		s += i
	}
	//SVM:BARRIER // want 2:`^warning: //SVM:BARRIER .* is an ordinary comment`
	/*svm:barrier*/ // want 2:`^warning: /\*svm:barrier\*/ is an ordinary comment`
	// svm: this prose is not a directive
	//svm:barrier
	println(s)
}

// Directives that parse but that this version cannot run: each is an
// error, never a silent no-op.
package main

func main() {
	n, s := 4, 0
	a := make([]int, n)
	//svm:psection // want 2:`^psection is not supported by this version of svmc \(it parses, but the runtime cannot run it yet\)$`
	{
		//svm:section // want 3:`^section is not supported by this version of svmc \(it parses, but the runtime cannot run it yet\)$`
		s++
	}
	//svm:critical c // want 2:`^critical is not supported by this version of svmc \(it parses, but the runtime cannot run it yet\)$`
	s++
	//svm:critical // want 2:`^critical is not supported by this version of svmc \(it parses, but the runtime cannot run it yet\)$`
	s++
	//svm:end critical
	//svm:lock(s, a[0]) // want 2:`^lock is not supported by this version of svmc \(it parses, but the runtime cannot run it yet\)$`
	s++
	//svm:atomic // want 2:`^atomic is not supported by this version of svmc \(it parses, but the runtime cannot run it yet\)$`
	s++
	//svm:replicated // want 2:`^replicated is not supported by this version of svmc \(it parses, but the runtime cannot run it yet\)$`
	s++
	//svm:exclusive // want 2:`^exclusive is not supported by this version of svmc \(it parses, but the runtime cannot run it yet\)$`
	s++
	//svm:end exclusive
	//svm:barrier_checkin // want 2:`^barrier_checkin is not supported by this version of svmc \(it parses, but the runtime cannot run it yet\)$`
	s++
	//svm:barrier_checkout // want 2:`^barrier_checkout is not supported by this version of svmc \(it parses, but the runtime cannot run it yet\)$`
	//svm:coherence(release) :: a // want 2:`^coherence is not supported by this version of svmc \(it parses, but the runtime cannot run it yet\)$`
	//svm:prefetch a[0:2] // want 2:`^prefetch is not supported by this version of svmc \(it parses, but the runtime cannot run it yet\)$`
	//svm:processors P(2)
	//svm:template T(n)
	//svm:pdo loops(i) strategy(dynamic(2)) // want 30:`^strategy dynamic \(dynamic scheduling\) is not supported by this version of svmc; schedule with on_home\(\.\.\.\), block or cyclic$`
	for i := 0; i < n; i++ {
		a[i] = i
	}
	//svm:pdo loops(i) strategy(guided) // want 30:`^strategy guided \(dynamic scheduling\) is not supported`
	for i := 0; i < n; i++ {
		a[i] = i
	}
	//svm:pdo loops(i) strategy(affinity) // want 30:`^strategy affinity \(dynamic scheduling\) is not supported`
	for i := 0; i < n; i++ {
		a[i] = i
	}
	//svm:pdo loops(i) processors(P) strategy(block) template(T) // want 60:`^pdo template\(T\): semi-dynamic scheduling is not supported by this version of svmc; drop the template clause$`
	for i := 0; i < n; i++ {
		a[i] = i
	}
	_ = s
}

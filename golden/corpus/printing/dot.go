package main

import . "fmt"

// dotted prints through a dot import of fmt, in exclusive code and in a
// pdo's iterations (under --mpi every rank printed the exclusive lines).
func dotted() {
	Println("dot import, exclusive")
	Printf("dot import, %s\n", "formatted")
	//svm:pdo loops(i)
	for i := 0; i < 3; i++ {
		Println("dot import, iteration", i)
	}
	Print(Sprintln("dot import, tuple:", 2))
}

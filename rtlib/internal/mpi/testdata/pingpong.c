/* pingpong: the C reference for testdata/pingpong (same sizes, rounds and
 * output), built with mpicc. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
	int provided, r;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &r);
	int sizes[] = {8, 1 << 20};
	for (int s = 0; s < 2; s++) {
		int size = sizes[s], reps = size > 1024 ? 200 : 20000;
		char *buf = calloc(size, 1);
		double best = 1e9;
		for (int round = 0; round < 6; round++) {
			MPI_Barrier(MPI_COMM_WORLD);
			double t0 = MPI_Wtime();
			for (int i = 0; i < reps; i++) {
				if (r == 0) {
					MPI_Send(buf, size, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
					MPI_Recv(buf, size, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				} else if (r == 1) {
					MPI_Recv(buf, size, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
					MPI_Send(buf, size, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
				}
			}
			double t = MPI_Wtime() - t0;
			if (round > 0 && t < best)
				best = t;
		}
		if (r == 0) {
			double one = best / (2.0 * reps);
			printf("%d %.4f %.1f\n", size, one * 1e6, size / one / 1e6);
		}
		free(buf);
	}
	MPI_Finalize();
	return 0;
}

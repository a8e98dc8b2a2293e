/*
 * libvbmc_mpi — the MPI driver of libvbmc: rank 0 of a communicator runs the ask-tell loop, the
 * other ranks, alone or in groups, evaluate the log joint, and results are told as they arrive.
 *
 * A library of its own (libvbmc_mpi, pkg-config vbmc-mpi), built when MPI is found, on top of
 * libvbmc's public API only. Include it after <mpi.h> is available; link with
 * `pkg-config --cflags --libs vbmc-mpi` and build with your MPI's compiler wrapper (mpicc).
 *
 *   MPI_Init(&argc, &argv);
 *   vbmc *run = NULL;
 *   if (rank == 0 && vbmc_load(&run, "job.ckpt") != VBMC_OK)   (resume after a kill, or start)
 *       vbmc_create(&run, dim, NULL, NULL, NULL, plb, pub, opts);   (opts: max_pending = workers,
 *                                                                     checkpoint_file = "job.ckpt")
 *   vbmc_mpi_run(run, log_joint, NULL, MPI_COMM_WORLD, 1, 0.0);     (every rank)
 *   if (rank == 0) { vbmc_posterior(run, &post); ... }
 *   MPI_Finalize();
 *
 * Fortran: module vbmc_mpi (vbmc_mpi.f90, installed with the library) binds vbmc_mpi_run_f.
 */
#ifndef VBMC_VBMC_MPI_H
#define VBMC_VBMC_MPI_H

#include <mpi.h>

#include "vbmc.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(VBMC_MPI_BUILDING) && (defined(__GNUC__) || defined(__clang__))
#define VBMC_MPI_API __attribute__((visibility("default")))
#else
#define VBMC_MPI_API
#endif

/* The log joint at x[dim], evaluated by every rank of a group together: group is the group's
 * communicator (one rank, or group_size ranks for a simulator that is itself MPI-parallel; rank
 * 0 of group is the group's leader). The leader's return value and *log_joint_sd (0 on entry)
 * are told; the other ranks' are ignored. NaN for a failed evaluation. */
typedef double (*vbmc_mpi_log_joint_fn)(const double *x, double *log_joint_sd, MPI_Comm group,
                                        void *userdata);

/* Runs the ask-tell loop of `run` over the ranks of comm; collective: every rank of comm calls it
 * with the same group_size and timeout.
 *   run         on rank 0 (the host): a live run, created or loaded there (option max_pending:
 *               the number of groups, size - 1 / group_size, for every group to be busy; option
 *               checkpoint_file: saves after each tell, see below). Ignored on the other ranks
 *               (NULL).
 *   f, userdata evaluated on the other ranks (ignored on rank 0).
 *   group_size  ranks per evaluation; ranks 1 .. size-1 form groups of group_size consecutive
 *               ranks, so size - 1 must be a positive multiple of it.
 *   timeout     seconds after which an evaluation not yet answered is given up (vbmc_abandon; the
 *               run asks again) and its group left alone until it answers (its late value is
 *               ignored, the group then rejoins); 0 or INFINITY: never.
 * The host first dispatches the run's pending points (those of a loaded checkpoint), then asks
 * until every group is busy or vbmc_ask answers VBMC_WAIT, receives results in any order
 * (non-blocking receives) and tells each as it arrives. When the run finishes or a call fails, no
 * new evaluation starts, those still out are waited for (up to the timeout) and told, and every
 * group is told to stop. A job killed at its wall-time limit with option checkpoint_file set
 * loses at most the evaluations in flight: load the checkpoint on rank 0 and call vbmc_mpi_run
 * again; the pending points are evaluated again first.
 * Returns, on every rank: VBMC_DONE when the run finished; else the host's first error (on rank
 * 0: a failed library call's status, its message in vbmc_mpi_last_error(); the run stays
 * usable, a point whose tell failed stays pending, and a new call resumes).
 * VBMC_E_ARG when the arguments of any rank were refused (size < 2, group_size, timeout, a NULL
 * f on an evaluating rank, a run that is not live on rank 0), VBMC_E_IO when an MPI call
 * returned an error (only with an error handler that returns, e.g. MPI_ERRORS_RETURN on comm).
 * Messages are its own communicator's (a duplicate of comm), so other traffic on comm is safe. */
VBMC_MPI_API vbmc_status vbmc_mpi_run(vbmc *run, vbmc_mpi_log_joint_fn f, void *userdata,
                                      MPI_Comm comm, int group_size, double timeout);

/* For Fortran: the group's communicator reaches the callback as a Fortran handle (MPI_Fint, by
 * value; type(MPI_Comm) % MPI_VAL in mpi_f08) and comm is one too. Otherwise as vbmc_mpi_run. */
typedef double (*vbmc_mpi_log_joint_fint_fn)(const double *x, double *log_joint_sd, MPI_Fint group,
                                             void *userdata);
VBMC_MPI_API vbmc_status vbmc_mpi_run_f(vbmc *run, vbmc_mpi_log_joint_fint_fn f, void *userdata,
                                        MPI_Fint comm, int group_size, double timeout);

/* A sentence about the last vbmc_mpi_run on this thread that did not return VBMC_DONE ("" after
 * one that did). Static storage of the thread, valid until its next vbmc_mpi_run. */
VBMC_MPI_API const char *vbmc_mpi_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* VBMC_VBMC_MPI_H */

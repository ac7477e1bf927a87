/*
 * The tool information interface (MPI_T, MPI-4.0 chapter 15), split by
 * object: mpit.c (life cycle, strings, enums, event sources),
 * mpit_cvar.c (control variables: the environment table), mpit_pvar.c
 * (performance variables: the engine's counters, hcomm/counters.h),
 * mpit_category.c (one category per layer) and mpit_event.c (events).
 *
 * MPI_T calls return their error class and never call an error handler.
 * Locks: the face's MPI_T lock (hc_mpit_lock) guards sessions, handles and
 * the variable tables; it may be held while calling the engine, which
 * never calls back under it (events have their own lock, mpit_event.c).
 */
#ifndef HC_MPI_MPIT_H
#define HC_MPI_MPIT_H

#include <mpi.h>
#include <stdint.h>

/* MPI_SUCCESS when MPI_T is initialised, else MPI_T_ERR_NOT_INITIALIZED. */
int hc_mpit_check(void);
/* The same, then MPI_ERR_ARG when out (a required argument) is NULL. */
int hc_mpit_check_arg(const void *out);
void hc_mpit_lock(void);
void hc_mpit_unlock(void);

/* Copies text into an MPI_T string argument: with len NULL nothing; with
 * buf NULL or *len 0 only the length needed (with the NUL) into *len;
 * else at most *len - 1 characters and the NUL, and *len the count
 * stored with the NUL. */
void hc_mpit_string(const char *text, char *buf, int *len);

/* The live objects of one kind (handles, sessions, registrations): each
 * starts with a node, so one set of list calls serves them all.  The
 * caller holds the lock that guards the list. */
typedef struct hc_mpit_node {
  struct hc_mpit_node *next;
} hc_mpit_node_t;

void hc_mpit_list_push(hc_mpit_node_t **head, void *object);
/* 1 when object is on the list (and with unlink, takes it off), else 0. */
int hc_mpit_list_find(hc_mpit_node_t **head, const void *object, int unlink);
/* Takes the first object off the list; NULL when empty. */
void *hc_mpit_list_pop(hc_mpit_node_t **head);

/* The event source's clock: nanoseconds since an arbitrary start. */
MPI_Count hc_mpit_now(void);

/* The enum of boolean control variables (off 0, on 1). */
MPI_T_enum hc_mpit_enum_bool(void);

/* ---- categories (mpit_category.c) --------------------------------------- */
typedef enum hc_mpit_category {
  HC_MPIT_CAT_ROOT = 0,
  HC_MPIT_CAT_DIAGNOSTICS,
  HC_MPIT_CAT_BOOTSTRAP,
  HC_MPIT_CAT_ENGINE,
  HC_MPIT_CAT_COLLECTIVES,
  HC_MPIT_CAT_SELF,
  HC_MPIT_CAT_SHM,
  HC_MPIT_CAT_TCP,
  HC_MPIT_CAT_VERBS,
  HC_MPIT_CAT_DEVICE,
  HC_MPIT_CAT_LAUNCHER,
  HC_MPIT_NCATEGORIES
} hc_mpit_category_t;

/* The category of a transport's variables, by its name. */
int hc_mpit_category_of_transport(const char *name);
/* Bumps the number MPI_T_category_changed reports (variables were added). */
void hc_mpit_category_touch(void);

/* ---- variables, for the categories and hcmpi_info ------------------------ */
/* Each returns how many variables it has and their categories. */
int hc_mpit_cvar_count(void);
int hc_mpit_cvar_category(int index);
int hc_mpit_pvar_count(void);
int hc_mpit_pvar_category(int index);
int hc_mpit_event_count(void);
int hc_mpit_event_category(int index);
/* Frees every handle, session and registration (the last MPI_T_finalize). */
void hc_mpit_cvar_release_all(void);
void hc_mpit_pvar_release_all(void);
void hc_mpit_event_release_all(void);

#endif /* HC_MPI_MPIT_H */

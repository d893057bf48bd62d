/* interrupt.h - SIGINT and SIGTERM as a request to stop: the MD loop looks at each host step
 * (and at each sample point of a device-decided run) and ends the run with a row that says
 * "interrupted". A second signal kills at once (the handler is reset by the first). */
#ifndef NBR_INTERRUPT_H
#define NBR_INTERRUPT_H

#ifdef __cplusplus
extern "C" {
#endif

/* Catches SIGINT and SIGTERM, except where they are ignored (a background job of a script,
 * nohup): those stay ignored. */
void nbr_catch_interrupts(void);
/* The signal caught, or 0. */
int nbr_interrupted(void);
/* Dies of `sig` as the default action would (the shell sees 128 + sig). */
void nbr_die_of(int sig)
#ifdef __GNUC__
    __attribute__((noreturn))
#endif
    ;

#ifdef __cplusplus
}
#endif
#endif

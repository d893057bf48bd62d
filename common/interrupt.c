/* interrupt.c - SIGINT and SIGTERM as a request to stop (see interrupt.h). */
#define _XOPEN_SOURCE 700   /* sigaction */
#include "interrupt.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile sig_atomic_t caught;

/* Async-signal-safe: it only records the signal. */
static void on_signal(int sig) { caught = sig; }

void nbr_catch_interrupts(void)
{
    static const int sigs[] = {SIGINT, SIGTERM};
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESETHAND | SA_RESTART;   /* the second signal: the default action */
    sigemptyset(&sa.sa_mask);
    for (size_t k = 0; k < sizeof sigs / sizeof sigs[0]; k++)
        if (sigaction(sigs[k], NULL, &old) == 0 && old.sa_handler != SIG_IGN) sigaction(sigs[k], &sa, NULL);
}

int nbr_interrupted(void) { return caught; }

void nbr_die_of(int sig)
{
    fflush(NULL);
    signal(sig, SIG_DFL);
    raise(sig);
    exit(128 + sig);   /* not reached: the default action of SIGINT and SIGTERM ends the process */
}

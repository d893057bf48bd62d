/* stages.h - the CPU stages every CPU variant shares: leapfrog, periodic wrap, properties,
 * rescaling, reordering by a permutation. A CPU variant lists CPU_COMMON_STAGES in its
 * Variant table and supplies the stages it changes (build, forces, ...). */
#ifndef NBR_CPU_STAGES_H
#define NBR_CPU_STAGES_H

#include "../../common/sim.h"

void cpu_kick_drift(Sim *s);
void cpu_wrap(Sim *s);
void cpu_kick(Sim *s);
void cpu_props(Sim *s);
void cpu_rescale(Sim *s, double factor);

/* Reorders r, v and a by the permutation order[new] = old. */
void reorder_atoms(Sim *s, const int *order);

#define CPU_COMMON_STAGES                                                                  \
    .kick_drift = cpu_kick_drift, .wrap = cpu_wrap, .kick = cpu_kick, .props = cpu_props, \
    .rescale = cpu_rescale

#endif

/* component_plant.h - planted faults of the device components, for their own tests only
 * (tests/test_components.cu; docs/mutants.md, "The components' planted faults").
 *
 * A test build made with -DCOMPONENT_PLANT=K (make build/double/test-components-plant-K) compiles
 * fault K into the component that holds the hook NBR_PLANT(K, statement): a statement of its own,
 * never the body of an if with an else. In every other build COMPONENT_PLANT is 0 and each hook is
 * an empty statement, so no program's code changes. */
#ifndef NBR_COMPONENT_PLANT_H
#define NBR_COMPONENT_PLANT_H

#ifndef COMPONENT_PLANT
#define COMPONENT_PLANT 0
#endif

/* not wrapped in do { } while (0): a hook's break or continue must reach the loop around it */
#if COMPONENT_PLANT
#define NBR_PLANT(k, ...)                \
    if (COMPONENT_PLANT != (k)) {        \
    } else {                             \
        __VA_ARGS__;                     \
    }
#else
#define NBR_PLANT(k, ...) \
    do {                  \
    } while (0)
#endif

#endif

"""The 2-D banana of examples/quickstart.c from Python: ask-tell loop, seed 1, prints the ELBO."""
import math

import vbmc


def banana_log_joint(x):
    """-[(x1^2 - x2)^2 + (x1 - 1)^2 / 100] + log N(x; 0, 3^2 I), operations as in quickstart.c."""
    banana = -((x[0] * x[0] - x[1]) * (x[0] * x[0] - x[1]) + (x[0] - 1) * (x[0] - 1) / 100.0)
    log_prior = -0.5 * (x[0] * x[0] + x[1] * x[1]) / 9.0 - math.log(2.0 * math.pi * 9.0)
    return banana + log_prior


def main():
    run = vbmc.VBMCRun(lb=None, ub=None, plb=[-3.0, -3.0], pub=[3.0, 3.0],
                    options={"seed": 1, "display": "off"})
    while (x := run.ask()) is not None:
        run.tell(x, banana_log_joint(x))
    post = run.posterior()
    print("ELBO = %.17g" % post.elbo)
    print("ELBO SD = %.17g" % post.elbo_sd)
    mean, cov = post.moments()
    print("posterior mean = %s" % mean)


if __name__ == "__main__":
    main()

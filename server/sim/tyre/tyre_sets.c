/* The shipped Magic Formula coefficient sets (tyre.h pdk_mf_set), each with
 * its source, and the check of a coefficient set (pdk_mf_problem). */
#include <math.h>
#include <stddef.h>

#include "tyre/tyre.h"

/* Passenger car tyre 205/60R15 91V at 2.2 bar: Pacejka, Tyre and Vehicle
 * Dynamics, 2nd ed. (2006), Appendix 3, Table A3.1, as transcribed in
 * KMoula30/outlap data/tires/pacejka_2006_205_60r15/car.tyr.yaml. ISO signs.
 * Every coefficient of the table; the ones it does not list are 0. */
/* clang-format off */
static const pdk_mf_coeffs road205 = {
    .fnomin_n = 4000.0,
    .unloaded_radius_m = 0.313,
    .nominal_pressure_pa = 0.0,
    .lfzo = 1.0,
    .pcx1 = 1.685, .pdx1 = 1.210, .pdx2 = -0.037, .pex1 = 0.344, .pex2 = 0.095, .pex3 = -0.020,
    .pkx1 = 21.51, .pkx2 = -0.163, .pkx3 = 0.245, .phx1 = -0.002, .phx2 = 0.002,
    .pcy1 = 1.193, .pdy1 = -0.990, .pdy2 = 0.145, .pdy3 = -11.23, .pey1 = -1.003, .pey2 = -0.537,
    .pey3 = -0.083, .pey4 = -4.787, .pky1 = -14.95, .pky2 = 2.130, .pky3 = -0.028, .pky4 = 2.0,
    .pky6 = -0.92, .pky7 = -0.24, .phy1 = 0.003, .phy2 = -0.001, .pvy1 = 0.045, .pvy2 = -0.024,
    .pvy3 = -0.532, .pvy4 = 0.039,
    .rbx1 = 12.35, .rbx2 = -10.77, .rcx1 = 1.092, .rhx1 = 0.007,
    .rby1 = 6.461, .rby2 = 4.196, .rby3 = -0.015, .rcy1 = 1.081, .rhy1 = 0.009,
    .rvy1 = 0.053, .rvy2 = -0.073, .rvy3 = 0.517, .rvy4 = 35.44, .rvy5 = 1.9, .rvy6 = -10.71,
    .qbz1 = 8.964, .qbz2 = -1.106, .qbz3 = -0.842, .qbz5 = -0.227, .qbz9 = 18.47, .qcz1 = 1.180,
    .qdz1 = 0.100, .qdz2 = -0.001, .qdz3 = 0.007, .qdz4 = 13.05, .qdz6 = -0.008, .qdz8 = -0.296,
    .qdz9 = -0.009, .qez1 = -1.609, .qez2 = -0.359, .qez4 = 0.174, .qez5 = -0.896, .qhz1 = 0.007,
    .qhz2 = -0.002, .qhz3 = 0.147, .qhz4 = 0.004,
    .ssz1 = 0.043, .ssz2 = 0.001, .ssz3 = 0.731, .ssz4 = -0.238,
    .qsy1 = 0.01,
};

/* The aligning-moment block the sport, slick and kart sets borrow (their
 * sources give none): Pac2002 file of a 245/40R18 performance tyre,
 * projectchrono/chrono data/vehicle/sedan/tire/Sedan_Pac02Tire.tir
 * (QBZ*, QCZ1, QDZ*, QEZ*, QHZ*; the file has no QBZ10 and no SSZ*). The
 * trail's slope factors QBZ1..3 and the residual's QBZ9 are multiplied by
 * the ratio of the host set's Ky / (mu_y Fz) at its nominal load to the
 * 245/40R18's (16.71), so that the trail falls away over the host's own
 * slip range; the rest is the file's. Paddock's fit, not a measurement. */
#define BORROWED_MZ(s)                                                                            \
    .qbz1 = 10.904 * (s), .qbz2 = -1.8412 * (s), .qbz3 = -0.52041 * (s), .qbz4 = 0.039211,       \
    .qbz5 = 0.41511, .qbz9 = 8.9846 * (s), .qcz1 = 1.2136, .qdz1 = 0.093509, .qdz2 = -0.0092183, \
    .qdz3 = -0.057061, .qdz4 = 0.73954, .qdz6 = -0.0067783, .qdz7 = 0.0052254, .qdz8 = -0.18175, \
    .qdz9 = 0.029952, .qez1 = -1.5697, .qez2 = 0.33394, .qez4 = 0.26711, .qez5 = -3.594,         \
    .qhz1 = 0.0047326, .qhz2 = 0.0026687, .qhz3 = 0.11998, .qhz4 = 0.059083

/* Sport-focused road tyre of the Roborace DevBot, MF5.2: TUMFTM
 * sim_vehicle_dynamics via TUMFTM/Open-Car-Dynamics
 * OCD_Vehicle_RWD_LSD__PT1__DOUBLE_TRACK__MF52__DEFAULT.json (Apache-2.0), as
 * transcribed in KMoula30/outlap data/tires/roborace_devbot_mf52/car.tyr.yaml
 * and README.md. Kept in MF5.2 form: camber through PHY3 = 0.004 with PKY6 = 0
 * (the route the set was fitted with; outlap folds it into PKY6 instead). The
 * set's LMUX = LMUY = 0.97 are folded in (PDX1, PDX2, PDY1, PDY2, PVY1..4
 * times 0.97), and its TNO signs (PDY1 > 0, PKY1 < 0, which give the same ISO
 * forces) are turned to the book's form by negating PDY1, PDY2 and RVY1..3
 * (tyre.h). PTX*, PTY* are the set's. QSY1 is its rolling-resistance
 * coefficient 0.025. No aligning moment in the source: BORROWED_MZ, ratio
 * 1.595. */
static const pdk_mf_coeffs sport = {
    .fnomin_n = 3000.0,
    .unloaded_radius_m = 0.3,
    .nominal_pressure_pa = 0.0,
    .lfzo = 1.0,
    .pcx1 = 1.6, .pdx1 = 1.5 * 0.97, .pdx2 = -0.04 * 0.97, .pdx3 = 0.1, .pex1 = 0.7,
    .pex2 = -0.17, .pex3 = 0.023, .pex4 = -0.14, .pkx1 = 30.7, .pkx2 = 0.27, .pkx3 = 0.13,
    .pcy1 = 1.5, .pdy1 = -1.2 * 0.97, .pdy2 = 0.09 * 0.97, .pdy3 = 0.1, .pey1 = 0.1,
    .pey2 = -1.2, .pey3 = 0.05, .pey4 = -8.1, .pky1 = -75.5, .pky2 = 4.65, .pky3 = -0.6,
    .pky4 = 2.0, .phy1 = 0.003, .phy2 = -0.0006, .phy3 = 0.004, .pvy1 = 0.04 * 0.97,
    .pvy2 = -0.02 * 0.97, .pvy3 = -0.97 * 0.97, .pvy4 = -0.41 * 0.97,
    .rbx1 = 17.4, .rbx2 = 12.9, .rcx1 = 1.1, .rhx1 = 0.001,
    .rby1 = 20.6, .rby2 = -23.5, .rby3 = 0.001, .rcy1 = 1.0, .rhy1 = -0.02,
    .rvy1 = -0.16, .rvy2 = -0.03, .rvy3 = -27.5, .rvy4 = -29.7, .rvy5 = 0.03, .rvy6 = 0.0,
    BORROWED_MZ(1.595),
    .qsy1 = 0.025,
    .ptx1 = 0.75, .ptx2 = 0.007, .ptx3 = -0.013, .pty1 = 3.8, .pty2 = 4.7,
};

/* Formula One racing slick built from Perantoni and Limebeer, Optimal control
 * for a Formula One car with variable parameters, Vehicle System Dynamics
 * 52(5), 2014, Table 3 (the table as transcribed in KMoula30/outlap
 * data/tires/limebeer_2014_f1/README.md and juanmanzanero/fastest-lap
 * database/limebeer-2014-f1.xml): peak friction linear in load, mu_x 1.75 at 2
 * kN to 1.40 at 6 kN, mu_y 1.80 to 1.45, shape Q = 1.9, peak slips where the
 * paper's formula actually peaks (0.7512 of the table's kappa 0.11 / 0.10 and
 * alpha 9 / 8 degrees, as its sin(Q atan(S rho)) with S = pi / (2 atan Q)
 * peaks at rho = 0.7512). Fz0 = 4 kN (the middle of the table's loads), R0
 * 0.33 m (its Table 4). Exact: PDX1, PDX2, PDY1, PDY2 (the linear mu), PCX1 =
 * PCY1 = Q, PEX1 = PEY1 = 0. Fitted here, in closed form (with E = 0 the curve
 * peaks at B x = tan(pi / (2 C))): PKX1, PKX2 put the longitudinal peak at
 * kappa 0.0826 at 2 kN and 0.0751 at 6 kN; PKY1, PKY2 (PKY4 = 2) put the
 * lateral peak at 6.76 and 6.01 degrees; RBX1, RBY1 (RCX1 = RCY1 = 1) make the
 * combined force at nominal load with both slips at their peaks 0.672 of each
 * peak, as the paper's combined slip (its normalised slip vector rho) gives.
 * No aligning moment or camber in the paper: BORROWED_MZ, ratio 1.111. */
static const pdk_mf_coeffs slick = {
    .fnomin_n = 4000.0,
    .unloaded_radius_m = 0.33,
    .nominal_pressure_pa = 0.0,
    .lfzo = 1.0,
    .pcx1 = 1.9, .pdx1 = 1.575, .pdx2 = -0.35, .pkx1 = 41.086, .pkx2 = -5.2450,
    .pcy1 = 1.9, .pdy1 = -1.625, .pdy2 = 0.35, .pky1 = -69.702, .pky2 = 4.3917, .pky4 = 2.0,
    .rbx1 = 9.8524, .rcx1 = 1.0, .rby1 = 13.978, .rcy1 = 1.0,
    BORROWED_MZ(1.111),
    .qsy1 = 0.012,
};

/* Kart slick, rear tyre of Lot and Dal Bianco, Lap time optimisation of a
 * racing go-kart, Multibody System Dynamics (2016), University of Southampton
 * eprint 385883, as given in juanmanzanero/fastest-lap
 * database/roberto-lot-kart-2016.xml: R0 0.139 m, FNOMIN 560 N, LFZO 1.6;
 * every coefficient of its rear tyre (the front has lateral terms only). The
 * file's lateral signs (PDY1 and PKY1 positive: Fy positive for positive
 * alpha) are turned to ISO by negating both; its author marks RCX1 as
 * uncertain. No aligning moment in the source: BORROWED_MZ, ratio 1.348. QSY1
 * 0.02 is Paddock's (a kart slick's rolling resistance), not the paper's. */
static const pdk_mf_coeffs kart = {
    .fnomin_n = 560.0,
    .unloaded_radius_m = 0.139,
    .nominal_pressure_pa = 0.0,
    .lfzo = 1.6,
    .pcx1 = 2.3, .pdx1 = 0.9, .pex1 = 0.95, .pkx1 = 20.0, .pkx2 = 1.0, .pkx3 = -0.5,
    .pcy1 = 2.3, .pdy1 = -1.5, .pey1 = 0.9, .pky1 = -37.6, .pky2 = 1.6, .pky4 = 2.0,
    .rbx1 = 14.0, .rcx1 = 1.0, .rby1 = 12.0, .rcy1 = 0.6,
    BORROWED_MZ(1.348),
    .qsy1 = 0.02,
};

/* clang-format on */

typedef struct mf_set_row {
    const char *name;
    const pdk_mf_coeffs *coeffs;
    const char *source;
} mf_set_row;

static const mf_set_row sets[PDK_MF_SET_COUNT] = {
    [PDK_MF_ROAD_205_60R15] = {"road205", &road205,
                               "Pacejka, Tyre and Vehicle Dynamics, 2nd ed. (2006), Table A3.1: "
                               "205/60R15 91V at 2.2 bar (transcribed in KMoula30/outlap "
                               "data/tires/pacejka_2006_205_60r15/car.tyr.yaml)"},
    [PDK_MF_SPORT] = {"sport", &sport,
                      "Roborace DevBot sport road tyre, MF5.2 (TUMFTM sim_vehicle_dynamics via "
                      "TUMFTM/Open-Car-Dynamics, transcribed in KMoula30/outlap "
                      "data/tires/roborace_devbot_mf52); aligning moment borrowed from "
                      "projectchrono/chrono data/vehicle/sedan/tire/Sedan_Pac02Tire.tir"},
    [PDK_MF_SLICK] = {"slick", &slick,
                      "Formula One slick built from Perantoni and Limebeer, Vehicle System "
                      "Dynamics 52(5) 2014, Table 3 (mu, shape and peak slips; stiffness and "
                      "combined-slip coefficients fitted by Paddock); aligning moment borrowed "
                      "from projectchrono/chrono data/vehicle/sedan/tire/Sedan_Pac02Tire.tir"},
    [PDK_MF_KART] = {"kart", &kart,
                     "Kart slick (rear) of Lot and Dal Bianco 2016, Southampton eprint 385883, "
                     "from juanmanzanero/fastest-lap database/roberto-lot-kart-2016.xml; "
                     "aligning moment borrowed from projectchrono/chrono "
                     "data/vehicle/sedan/tire/Sedan_Pac02Tire.tir"},
};

static const mf_set_row *row(pdk_mf_set set)
{
    if ((int)set <= 0 || (int)set >= PDK_MF_SET_COUNT) {
        return NULL;
    }
    return &sets[set];
}

const pdk_mf_coeffs *pdk_mf_set_coeffs(pdk_mf_set set)
{
    const mf_set_row *r = row(set);
    return r != NULL ? r->coeffs : NULL;
}

const char *pdk_mf_set_name(pdk_mf_set set)
{
    const mf_set_row *r = row(set);
    return r != NULL ? r->name : NULL;
}

const char *pdk_mf_set_source(pdk_mf_set set)
{
    const mf_set_row *r = row(set);
    return r != NULL ? r->source : NULL;
}

const char *pdk_mf_problem(const pdk_mf_coeffs *mf)
{
    if (mf == NULL) {
        return "tyre.mf: no coefficients";
    }
    /* Every field is a double (tyre.h), so the struct is an array of them. */
    const double *v = (const double *)mf;
    size_t n = sizeof *mf / sizeof(double);
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(v[i])) {
            return "tyre.mf: a coefficient is not finite";
        }
    }
    /* Divisors, and what makes a peak, a slope and a combined-slip
     * weighting at all. */
    if (!(mf->fnomin_n > 0.0)) {
        return "tyre.mf.fnomin_n must be above 0";
    }
    if (!(mf->lfzo > 0.0)) {
        return "tyre.mf.lfzo must be above 0";
    }
    if (!(mf->unloaded_radius_m > 0.0)) {
        return "tyre.mf.unloaded_radius_m must be above 0";
    }
    if (mf->nominal_pressure_pa < 0.0) {
        return "tyre.mf.nominal_pressure_pa must be 0 (no pressure terms) or above";
    }
    if (!(mf->pcx1 > 0.0) || !(mf->pcy1 > 0.0)) {
        return "tyre.mf.pcx1 and pcy1 (shape factors) must be above 0";
    }
    if (!(mf->pdx1 > 0.0)) {
        return "tyre.mf.pdx1 (longitudinal friction) must be above 0";
    }
    if (!(mf->pkx1 > 0.0)) {
        return "tyre.mf.pkx1 (longitudinal slip stiffness) must be above 0";
    }
    if (!(mf->pdy1 < 0.0) || !(mf->pky1 < 0.0)) {
        return "tyre.mf.pdy1 and pky1 must be below 0 (ISO signs in the book's form: a TNO "
               "file's positive PDY1 is negated, with PDY2 and RVY1..3)";
    }
    if (mf->pky2 == 0.0) {
        return "tyre.mf.pky2 must not be 0 (it divides the load)";
    }
    if (!(mf->rbx1 > 0.0) || !(mf->rcx1 > 0.0) || !(mf->rby1 > 0.0) || !(mf->rcy1 > 0.0)) {
        return "tyre.mf.rbx1, rcx1, rby1 and rcy1 (combined slip) must be above 0";
    }
    if (mf->pty1 != 0.0 && mf->pty2 == 0.0) {
        return "tyre.mf.pty2 must not be 0 when pty1 is given (it divides the load)";
    }
    return NULL;
}

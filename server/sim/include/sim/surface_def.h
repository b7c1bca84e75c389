/* The surface table (ids, friction rows, soils) and a tyre on soil as a
 * definition names them; contact with the ground is sim's
 * (ground/surface.h). */
#ifndef PDK_SIM_SURFACE_DEF_H
#define PDK_SIM_SURFACE_DEF_H

#include <stdint.h>

/* Surface ids. Values are stable (terrain cells and recordings hold them). */
typedef enum pdk_surface_id {
    PDK_SURFACE_TARMAC = 0,     /* dry asphalt: the reference surface */
    PDK_SURFACE_TARMAC_WET = 1, /* wet asphalt */
    PDK_SURFACE_CONCRETE = 2,
    PDK_SURFACE_GRAVEL = 3,     /* loose gravel */
    PDK_SURFACE_DIRT = 4,       /* dry dirt road */
    PDK_SURFACE_GRASS = 5,      /* dry grass / turf */
    PDK_SURFACE_MUD = 6,        /* deformable */
    PDK_SURFACE_SNOW = 7,       /* packed snow */
    PDK_SURFACE_ICE = 8,
    PDK_SURFACE_SAND = 9,       /* loose dry sand, deformable */
    PDK_SURFACE_SILT_LOAM = 10, /* deformable; the Polaris model's default soil class */
    PDK_SURFACE_COUNT = 11
} pdk_surface_id;

/* Bekker / Janosi-Hanamoto soil values in SI (Wong's table converted:
 * kc N/m^(n+1), kphi N/m^(n+2), c Pa). */
typedef struct pdk_soil {
    double n;            /* sinkage exponent */
    double kc;           /* cohesive modulus */
    double kphi;         /* frictional modulus */
    double cohesion_pa;  /* c */
    double phi_rad;      /* internal friction angle */
    double shear_k_m;    /* Janosi shear deformation modulus K */
    double density_kgpm3; /* bulk density, for bulldozing's weight term */
} pdk_soil;

typedef struct pdk_surface {
    const char *name;       /* as presets spell it: "tarmac", "tarmacWet", "concrete",
                             * "gravel", "dirt", "grass", "mud", "snow", "ice", "sand",
                             * "siltLoam" */
    double mu_peak;         /* peak friction, road tyre */
    double mu_slide;        /* locked-wheel (fully sliding) friction, road tyre */
    double rolling_coeff;   /* f on this surface for a car tyre; on deformable rows, for
                             * a tyre that does not run the soil model */
    double stiffness_scale; /* slip stiffness relative to tarmac (loose ground < 1) */
    int loose;              /* 1: a sliding tyre keeps nearly all of its peak */
    int deformable;         /* 1: the soil model applies (soil below) */
    pdk_soil soil;          /* all zero on hard rows (packed snow is hard: low mu, no
                             * sinkage; fresh snow would be a soil row) */
} pdk_surface;

/* The row of a surface id, or NULL for an id out of range. */
const pdk_surface *pdk_surface_get(int id);

/* The id of a name as presets spell it, or -1. */
int pdk_surface_by_name(const char *name);

/* Where a row's numbers come from, one sentence per row (for docs and
 * `paddockd presets describe world`). */
const char *pdk_surface_source(int id);

/* A tyre on soil: its size and pressures (preset keys tyre.soil.*). */
typedef struct pdk_soil_tyre {
    double radius_m;        /* unloaded radius R */
    double width_m;         /* b */
    double section_height_m;
    double inflation_pa;    /* p_i, gauge */
    double carcass_pa;      /* p_c */
    double lug_height_m;    /* adds to the shearing depth */
    double lug_area_ratio;  /* share of the contact area the lugs fill */
    double tread_k_m;       /* the tread's shear compliance, added to the soil's K */
    double hysteresis;      /* rolling loss per unit of relative deflection */
} pdk_soil_tyre;

#endif

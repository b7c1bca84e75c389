/* A hosted proxy's pose between the protocol's ProxyPose and sim's
 * pdk_proxy_pose (sim/contact.h): the same numbers, field for field. */
#include "wire.h"

void pdk_wire_proxy_pose_from_pb(const Paddock__V1__ProxyPose *msg, pdk_proxy_pose *out)
{
    *out = (pdk_proxy_pose){
        .pos_m = {msg->x_m, msg->y_m, msg->z_m},
        .quat = {msg->qw, msg->qx, msg->qy, msg->qz},
        .vel_mps = {msg->vx_mps, msg->vy_mps, msg->vz_mps},
        .omega_radps = {msg->wx_radps, msg->wy_radps, msg->wz_radps},
    };
}

void pdk_wire_proxy_pose_to_pb(const pdk_proxy_pose *pose, Paddock__V1__ProxyPose *msg)
{
    msg->x_m = pose->pos_m[0];
    msg->y_m = pose->pos_m[1];
    msg->z_m = pose->pos_m[2];
    msg->qw = pose->quat[0];
    msg->qx = pose->quat[1];
    msg->qy = pose->quat[2];
    msg->qz = pose->quat[3];
    msg->vx_mps = pose->vel_mps[0];
    msg->vy_mps = pose->vel_mps[1];
    msg->vz_mps = pose->vel_mps[2];
    msg->wx_radps = pose->omega_radps[0];
    msg->wy_radps = pose->omega_radps[1];
    msg->wz_radps = pose->omega_radps[2];
}

/* The Foxglove WebSocket server (foxglove.h): its clients, their JSON and
 * binary requests turned into the server's own Frames on a local
 * connection, the Frames the server sends back turned into Foxglove
 * messages, and the channel table kept in step with the session table. */
#include "foxglove.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "foxglove/descriptors.h"
#include "foxglove_scene.h"
#include "local.h"
#include "paddock/v1/descriptors.h"
#include "session.h"
#include "sim/channels.h"
#include "wire.h"
#include "wire_foxglove.h"

#define TOPIC_LEN 96
#define MAX_CLIENT_SUBS 64     /* subscriptions of one client (the server's cap, 32, applies too) */
#define MAX_CLIENT_CHANNELS 16 /* channels one client advertises to publish on */
#define MAX_PENDING 64         /* requests awaiting the server's reply, per client */
#define POLL_MS 100            /* how often the channel table is compared with the sessions */
#define STATE_RATE_HZ 60u      /* state and transforms */
#define TELEMETRY_RATE_HZ 30u
#define TIME_KEY 0xFFFFFFFFu /* the Time message's latest-wins key */
#define OP_MESSAGE_DATA 0x01 /* server -> client; the same opcode is a client's publish */
#define OP_TIME 0x02
#define NS_PER_S 1000000000ull

/* What a telemetry channel carries: the channels a driving engineer plots
 * first. Named, not indexed, so the list reads as `paddockd channels`. */
static const char *const telemetry_names[] = {
    "Speed", "VelX",      "VelY",        "YawRate",     "AccelX",      "AccelY",
    "Roll",  "Pitch",     "SteerAngle",  "SteerWheel",  "Throttle",    "BrakePressure",
    "Gear",  "EngineRPM", "TyreLoad_FL", "TyreLoad_FR", "TyreLoad_RL", "TyreLoad_RR",
};
#define N_TELEMETRY (sizeof(telemetry_names) / sizeof(telemetry_names[0]))

typedef enum fox_kind {
    FOX_STATE,     /* paddock.v1.VehicleState of one vehicle */
    FOX_TELEMETRY, /* paddock.v1.TelemetrySample of one vehicle */
    FOX_DBW,       /* paddock.v1.DbwReport of one vehicle, every kind */
    FOX_TF,        /* foxglove.FrameTransform: world -> bodies -> wheels of a session */
    FOX_SCENE,     /* foxglove.SceneUpdate: the session's terrain and vehicles */
} fox_kind;

static const char *const kind_topic[] = {"state", "telemetry", "dbw_report", "tf", "scene"};
static const char *const kind_schema[] = {"paddock.v1.VehicleState", "paddock.v1.TelemetrySample",
                                          "paddock.v1.DbwReport", "foxglove.FrameTransform",
                                          "foxglove.SceneUpdate"};

typedef struct fox_channel {
    uint32_t id;
    fox_kind kind;
    uint64_t session_id;
    pdk_vehicle_id vehicle; /* 0 for a session's tf and scene */
    char topic[TOPIC_LEN];
    bool seen; /* still there at this poll */
} fox_channel;

/* One of a client's subscriptions and the server subscription behind it. */
typedef struct fox_sub {
    bool used;
    uint32_t fox_id; /* the client's id for it */
    uint32_t channel_id;
    fox_kind kind;
    uint64_t session_id;
    pdk_vehicle_id vehicle;
    uint32_t server_sub; /* 0 while asked for, and for a scene */
} fox_sub;

/* A channel a client advertised to publish DBW commands on. */
typedef struct fox_client_channel {
    bool used;
    uint32_t id;
    uint64_t session_id;
    pdk_vehicle_id vehicle;
    bool kit_message; /* paddock.v1.DbwMessage; else paddock.v1.DbwCommand */
    char topic[TOPIC_LEN];
} fox_client_channel;

typedef enum pending_kind {
    PENDING_HELLO,
    PENDING_SUBSCRIBE,
    PENDING_UNSUBSCRIBE,
    PENDING_PUBLISH,
} pending_kind;

/* A Frame sent for the client, waiting for the server's reply. */
typedef struct fox_pending {
    uint64_t request_id; /* 0: a free entry */
    pending_kind kind;
    uint32_t id; /* the subscription's or the client channel's */
    char topic[TOPIC_LEN];
} fox_pending;

typedef struct fox_client fox_client;
struct fox_client {
    pdk_foxglove *fox;
    pdk_ws *ws;
    pdk_conn *conn; /* NULL once the server's side has hung up */
    uint64_t next_request_id;
    fox_sub subs[MAX_CLIENT_SUBS];
    fox_client_channel chans[MAX_CLIENT_CHANNELS];
    fox_pending pending[MAX_PENDING];
    size_t pending_next;
    /* The client's clock follows the session of its first subscription. */
    uint64_t clock_session;
    uint32_t clock_epoch;
    uint64_t clock_ns;
    bool clock_set;
    uint32_t session_number; /* sessionId = server start, client, this */
    bool closing;
    pdk_buf buf;
    fox_client *prev, *next;
};

/* A session's scene as last drawn: redrawn when its vehicles change. */
typedef struct fox_session {
    uint64_t id;
    uint32_t epoch;
    uint64_t vehicles_sig;
    bool seen;
} fox_session;

struct pdk_foxglove {
    uv_timer_t poll;
    bool poll_on;
    pdk_server_table *table;
    pdk_listener *local;
    fox_channel *channels;
    size_t n_channels, cap_channels;
    uint32_t next_channel_id;
    fox_session *sessions;
    size_t n_sessions, cap_sessions;
    fox_client *clients;
    uint64_t start_ns;
    int telemetry_chans[N_TELEMETRY];
    char *paddock_schema; /* base64 FileDescriptorSets */
    char *foxglove_schema;
    pdk_buf scratch;
};

/* ---- small helpers ------------------------------------------------------- */

static char *base64(const uint8_t *in, size_t len)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *out = malloc((len + 2) / 3 * 4 + 1);
    if (!out)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i < len; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16;
        if (i + 1 < len)
            v |= (uint32_t)in[i + 1] << 8;
        if (i + 2 < len)
            v |= in[i + 2];
        out[o++] = tab[(v >> 18) & 63];
        out[o++] = tab[(v >> 12) & 63];
        out[o++] = i + 1 < len ? tab[(v >> 6) & 63] : '=';
        out[o++] = i + 2 < len ? tab[v & 63] : '=';
    }
    out[o] = '\0';
    return out;
}

static void put_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void put_u64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t tick_ns(uint64_t tick)
{
    /* Exact to the ns below; a tick is 1/120 s. */
    return tick * NS_PER_S / PDK_TICK_HZ;
}

static void send_json(fox_client *cl, json_t *msg)
{
    char *text = json_dumps(msg, JSON_COMPACT);
    json_decref(msg);
    if (text) {
        pdk_ws_send_text(cl->ws, text, strlen(text));
        free(text);
    }
}

/* A status message (level 0 info, 1 warning, 2 error) naming what happened. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void
send_status(fox_client *cl, int level, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    send_json(cl, json_pack("{s:s, s:i, s:s}", "op", "status", "level", level, "message", msg));
}

static void send_server_info(fox_client *cl)
{
    char session[64];
    snprintf(session, sizeof(session), "%" PRIu64 "-%" PRIu64 "-%" PRIu32, cl->fox->start_ns,
             pdk_ws_id(cl->ws), cl->session_number);
    char tick_rate[16];
    snprintf(tick_rate, sizeof(tick_rate), "%u", PDK_TICK_HZ);
    send_json(cl, json_pack("{s:s, s:s, s:[s,s], s:[s], s:{s:s, s:s}, s:s}", "op", "serverInfo",
                            "name", "paddockd " PDK_BUILD_ID, "capabilities", "clientPublish",
                            "time", "supportedEncodings", "protobuf", "metadata", "build",
                            PDK_BUILD_ID, "tick_rate_hz", tick_rate, "sessionId", session));
}

static json_t *channel_json(const pdk_foxglove *fox, const fox_channel *ch)
{
    bool fox_schema = ch->kind == FOX_TF || ch->kind == FOX_SCENE;
    return json_pack("{s:I, s:s, s:s, s:s, s:s, s:s}", "id", (json_int_t)ch->id, "topic", ch->topic,
                     "encoding", "protobuf", "schemaName", kind_schema[ch->kind], "schema",
                     fox_schema ? fox->foxglove_schema : fox->paddock_schema, "schemaEncoding",
                     "protobuf");
}

/* One advertise per channel: each carries a whole FileDescriptorSet, so
 * many in one message could pass the frame limit. */
static void advertise(fox_client *cl, const fox_channel *ch)
{
    json_t *list = json_array();
    json_array_append_new(list, channel_json(cl->fox, ch));
    send_json(cl, json_pack("{s:s, s:o}", "op", "advertise", "channels", list));
}

static fox_channel *channel_by_id(pdk_foxglove *fox, uint32_t id)
{
    for (size_t i = 0; i < fox->n_channels; i++)
        if (fox->channels[i].id == id)
            return &fox->channels[i];
    return NULL;
}

/* ---- Frames to the server ------------------------------------------------ */

static uint64_t remember(fox_client *cl, pending_kind kind, uint32_t id, const char *topic)
{
    uint64_t rid = ++cl->next_request_id;
    /* A ring: an entry still waiting after MAX_PENDING newer requests (a
     * publisher far ahead of the ticks) is forgotten, and its reply then
     * reports without naming its channel. */
    fox_pending *p = &cl->pending[cl->pending_next];
    cl->pending_next = (cl->pending_next + 1) % MAX_PENDING;
    *p = (fox_pending){.request_id = rid, .kind = kind, .id = id};
    snprintf(p->topic, sizeof(p->topic), "%s", topic ? topic : "");
    return rid;
}

static fox_pending *pending_find(fox_client *cl, uint64_t rid)
{
    if (rid == 0)
        return NULL;
    for (size_t i = 0; i < MAX_PENDING; i++)
        if (cl->pending[i].request_id == rid)
            return &cl->pending[i];
    return NULL;
}

/* Hands f to the server as if the client had sent it. */
static void to_server(fox_client *cl, const Paddock__V1__Frame *f)
{
    if (!cl->conn)
        return;
    pdk_buf_reset(&cl->buf);
    if (pdk_wire_frame_append(&cl->buf, f) == PDK_OK)
        pdk_local_write(cl->conn, cl->buf.data, cl->buf.len);
}

static fox_sub *sub_by_fox_id(fox_client *cl, uint32_t fox_id)
{
    for (size_t i = 0; i < MAX_CLIENT_SUBS; i++)
        if (cl->subs[i].used && cl->subs[i].fox_id == fox_id)
            return &cl->subs[i];
    return NULL;
}

static fox_sub *sub_by_server_id(fox_client *cl, uint32_t server_sub)
{
    for (size_t i = 0; i < MAX_CLIENT_SUBS; i++)
        if (cl->subs[i].used && cl->subs[i].server_sub == server_sub && server_sub != 0)
            return &cl->subs[i];
    return NULL;
}

/* The latest-wins key of part of a subscription's stream (a vehicle's
 * transform, a report kind): one per subscription slot and part. */
static uint32_t stream_key(const fox_client *cl, const fox_sub *s, uint32_t part)
{
    return (uint32_t)(s - cl->subs) << 16 | (part & 0xFFFFu);
}

static void end_server_sub(fox_client *cl, fox_sub *s)
{
    if (s->server_sub != 0) {
        Paddock__V1__Unsubscribe u = PADDOCK__V1__UNSUBSCRIBE__INIT;
        u.subscription_id = s->server_sub;
        Paddock__V1__Frame f = PADDOCK__V1__FRAME__INIT;
        f.request_id = remember(cl, PENDING_UNSUBSCRIBE, s->fox_id, NULL);
        f.body_case = PADDOCK__V1__FRAME__BODY_UNSUBSCRIBE;
        f.unsubscribe = &u;
        to_server(cl, &f);
    }
    s->used = false;
}

static void send_scene(fox_client *cl, const fox_sub *s);

/* Asks the server for the subscription behind s. */
static void start_server_sub(fox_client *cl, fox_sub *s, const fox_channel *ch)
{
    Paddock__V1__Frame f = PADDOCK__V1__FRAME__INIT;
    f.request_id = remember(cl, PENDING_SUBSCRIBE, s->fox_id, ch->topic);
    uint32_t ids[1] = {ch->vehicle};
    Paddock__V1__Subscribe sub = PADDOCK__V1__SUBSCRIBE__INIT;
    Paddock__V1__TelemetrySubscribe tsub = PADDOCK__V1__TELEMETRY_SUBSCRIBE__INIT;
    Paddock__V1__DbwSubscribe dsub = PADDOCK__V1__DBW_SUBSCRIBE__INIT;
    switch (ch->kind) {
    case FOX_STATE:
    case FOX_TF:
        sub.session_id = ch->session_id;
        sub.rate_hz = STATE_RATE_HZ;
        sub.fields = (uint32_t)PADDOCK__V1__STATE_FIELD__STATE_FIELD_WHEELS |
                     (uint32_t)PADDOCK__V1__STATE_FIELD__STATE_FIELD_INSTRUMENTS;
        if (ch->kind == FOX_STATE) {
            sub.n_vehicle_ids = 1;
            sub.vehicle_ids = ids;
        }
        f.body_case = PADDOCK__V1__FRAME__BODY_SUBSCRIBE;
        f.subscribe = &sub;
        break;
    case FOX_TELEMETRY:
        tsub.session_id = ch->session_id;
        tsub.rate_hz = TELEMETRY_RATE_HZ;
        tsub.n_vehicle_ids = 1;
        tsub.vehicle_ids = ids;
        tsub.n_channels = N_TELEMETRY;
        tsub.channels = (char **)telemetry_names;
        f.body_case = PADDOCK__V1__FRAME__BODY_TELEMETRY_SUBSCRIBE;
        f.telemetry_subscribe = &tsub;
        break;
    case FOX_DBW:
        dsub.session_id = ch->session_id;
        dsub.vehicle_id = ch->vehicle;
        f.body_case = PADDOCK__V1__FRAME__BODY_DBW_SUBSCRIBE;
        f.dbw_subscribe = &dsub;
        break;
    case FOX_SCENE:
        return;
    }
    to_server(cl, &f);
}

/* ---- the client's requests ----------------------------------------------- */

static void handle_subscribe(fox_client *cl, json_t *msg)
{
    json_t *list = json_object_get(msg, "subscriptions");
    if (!json_is_array(list)) {
        send_status(cl, 2, "subscribe: \"subscriptions\" must be an array of {id, channelId}");
        return;
    }
    size_t i;
    json_t *item;
    json_array_foreach(list, i, item)
    {
        json_t *jid = json_object_get(item, "id");
        json_t *jch = json_object_get(item, "channelId");
        if (!json_is_integer(jid) || !json_is_integer(jch) || json_integer_value(jid) < 0 ||
            json_integer_value(jid) > UINT32_MAX) {
            send_status(cl, 2,
                        "subscribe: subscriptions[%zu] needs an integer id (0..4294967295) and "
                        "channelId",
                        i);
            continue;
        }
        uint32_t id = (uint32_t)json_integer_value(jid);
        json_int_t chid = json_integer_value(jch);
        fox_channel *ch =
            chid >= 0 && chid <= UINT32_MAX ? channel_by_id(cl->fox, (uint32_t)chid) : NULL;
        if (!ch) {
            send_status(cl, 2, "subscribe: channel %" JSON_INTEGER_FORMAT " is not advertised",
                        chid);
            continue;
        }
        if (sub_by_fox_id(cl, id)) {
            send_status(cl, 2, "subscribe: subscription id %" PRIu32 " is already in use", id);
            continue;
        }
        fox_sub *s = NULL;
        for (size_t k = 0; k < MAX_CLIENT_SUBS && !s; k++)
            if (!cl->subs[k].used)
                s = &cl->subs[k];
        if (!s) {
            send_status(cl, 2, "subscribe: a client may hold at most %d subscriptions",
                        MAX_CLIENT_SUBS);
            continue;
        }
        *s = (fox_sub){.used = true,
                       .fox_id = id,
                       .channel_id = ch->id,
                       .kind = ch->kind,
                       .session_id = ch->session_id,
                       .vehicle = ch->vehicle};
        if (cl->clock_session == 0) {
            cl->clock_session = ch->session_id;
            cl->clock_set = false;
            pdk_server_slot *slot = pdk_server_session_find(cl->fox->table, ch->session_id);
            cl->clock_epoch = slot ? slot->timeline_epoch : 0;
        }
        if (ch->kind == FOX_SCENE)
            send_scene(cl, s);
        else
            start_server_sub(cl, s, ch);
    }
}

static void handle_unsubscribe(fox_client *cl, json_t *msg)
{
    json_t *list = json_object_get(msg, "subscriptionIds");
    if (!json_is_array(list)) {
        send_status(cl, 2, "unsubscribe: \"subscriptionIds\" must be an array of integers");
        return;
    }
    size_t i;
    json_t *item;
    json_array_foreach(list, i, item)
    {
        fox_sub *s = json_is_integer(item) && json_integer_value(item) >= 0 &&
                             json_integer_value(item) <= UINT32_MAX
                         ? sub_by_fox_id(cl, (uint32_t)json_integer_value(item))
                         : NULL;
        if (!s) {
            send_status(cl, 2, "unsubscribe: subscriptionIds[%zu] is no subscription of yours", i);
            continue;
        }
        end_server_sub(cl, s);
    }
}

/* "/session/<id>/vehicle/<id>/<anything>": the session and vehicle a
 * published command drives. */
static bool parse_topic(const char *topic, uint64_t *session_id, pdk_vehicle_id *vehicle)
{
    unsigned long long sid = 0;
    unsigned int vid = 0;
    int used = 0;
    if (sscanf(topic, "/session/%llu/vehicle/%u/%n", &sid, &vid, &used) != 2 || used == 0 ||
        sid == 0 || vid == 0)
        return false;
    *session_id = sid;
    *vehicle = vid;
    return true;
}

static void handle_advertise(fox_client *cl, json_t *msg)
{
    json_t *list = json_object_get(msg, "channels");
    if (!json_is_array(list)) {
        send_status(cl, 2, "advertise: \"channels\" must be an array");
        return;
    }
    size_t i;
    json_t *item;
    json_array_foreach(list, i, item)
    {
        json_int_t id = json_integer_value(json_object_get(item, "id"));
        const char *topic = json_string_value(json_object_get(item, "topic"));
        const char *encoding = json_string_value(json_object_get(item, "encoding"));
        const char *schema = json_string_value(json_object_get(item, "schemaName"));
        if (!json_is_integer(json_object_get(item, "id")) || id < 0 || id > UINT32_MAX || !topic ||
            !encoding || !schema) {
            send_status(cl, 2,
                        "advertise: channels[%zu] needs an integer id, and topic, encoding and "
                        "schemaName strings",
                        i);
            continue;
        }
        if (strcmp(encoding, "protobuf") != 0) {
            send_status(cl, 2,
                        "advertise: channel %" JSON_INTEGER_FORMAT " has encoding \"%.32s\"; "
                        "paddockd takes \"protobuf\" only",
                        id, encoding);
            continue;
        }
        bool kit = strcmp(schema, "paddock.v1.DbwMessage") == 0;
        if (!kit && strcmp(schema, "paddock.v1.DbwCommand") != 0) {
            send_status(cl, 2,
                        "advertise: channel %" JSON_INTEGER_FORMAT " has schemaName \"%.64s\"; "
                        "paddockd takes paddock.v1.DbwCommand or paddock.v1.DbwMessage",
                        id, schema);
            continue;
        }
        uint64_t sid;
        pdk_vehicle_id vid;
        if (!parse_topic(topic, &sid, &vid)) {
            send_status(cl, 2,
                        "advertise: channel %" JSON_INTEGER_FORMAT " has topic \"%.64s\"; a "
                        "command's topic is /session/<session id>/vehicle/<vehicle id>/"
                        "dbw_command",
                        id, topic);
            continue;
        }
        fox_client_channel *slot = NULL;
        for (size_t k = 0; k < MAX_CLIENT_CHANNELS; k++) {
            if (cl->chans[k].used && cl->chans[k].id == (uint32_t)id) {
                slot = &cl->chans[k]; /* advertised again: replaced */
                break;
            }
            if (!cl->chans[k].used && !slot)
                slot = &cl->chans[k];
        }
        if (!slot) {
            send_status(cl, 2, "advertise: a client may advertise at most %d channels",
                        MAX_CLIENT_CHANNELS);
            continue;
        }
        *slot = (fox_client_channel){.used = true,
                                     .id = (uint32_t)id,
                                     .session_id = sid,
                                     .vehicle = vid,
                                     .kit_message = kit};
        snprintf(slot->topic, sizeof(slot->topic), "%s", topic);
    }
}

static void handle_unadvertise(fox_client *cl, json_t *msg)
{
    json_t *list = json_object_get(msg, "channelIds");
    if (!json_is_array(list)) {
        send_status(cl, 2, "unadvertise: \"channelIds\" must be an array of integers");
        return;
    }
    size_t i;
    json_t *item;
    json_array_foreach(list, i, item)
    {
        bool found = false;
        for (size_t k = 0; k < MAX_CLIENT_CHANNELS; k++) {
            if (cl->chans[k].used && json_is_integer(item) &&
                (json_int_t)cl->chans[k].id == json_integer_value(item)) {
                cl->chans[k].used = false;
                found = true;
            }
        }
        if (!found)
            send_status(cl, 2, "unadvertise: channelIds[%zu] is no channel you advertised", i);
    }
}

static void on_text(pdk_ws *ws, const char *text, size_t len, void *ud)
{
    (void)ud;
    fox_client *cl = pdk_ws_data(ws);
    if (!cl)
        return;
    json_error_t jerr;
    json_t *msg = json_loadb(text, len, 0, &jerr);
    if (!msg) {
        send_status(cl, 2, "not JSON: %s at line %d, column %d", jerr.text, jerr.line, jerr.column);
        return;
    }
    const char *op = json_string_value(json_object_get(msg, "op"));
    if (!op)
        send_status(cl, 2, "a request needs an \"op\" string");
    else if (strcmp(op, "subscribe") == 0)
        handle_subscribe(cl, msg);
    else if (strcmp(op, "unsubscribe") == 0)
        handle_unsubscribe(cl, msg);
    else if (strcmp(op, "advertise") == 0)
        handle_advertise(cl, msg);
    else if (strcmp(op, "unadvertise") == 0)
        handle_unadvertise(cl, msg);
    else
        send_status(cl, 2,
                    "op \"%.48s\" is not supported; paddockd takes subscribe, unsubscribe, "
                    "advertise and unadvertise",
                    op);
    json_decref(msg);
}

/* What a published message becomes: the client's command with the session
 * and vehicle its topic names. */
typedef struct publish_ctx {
    fox_client *cl;
    const fox_client_channel *ch;
} publish_ctx;

static pdk_error publish_take(const ProtobufCMessage *msg, void *ud)
{
    publish_ctx *p = ud;
    Paddock__V1__Frame f = PADDOCK__V1__FRAME__INIT;
    f.request_id = remember(p->cl, PENDING_PUBLISH, p->ch->id, p->ch->topic);
    if (p->ch->kit_message) {
        Paddock__V1__DbwMessage m = *(const Paddock__V1__DbwMessage *)msg;
        m.session_id = p->ch->session_id;
        m.vehicle_id = p->ch->vehicle;
        f.body_case = PADDOCK__V1__FRAME__BODY_DBW_MESSAGE;
        f.dbw_message = &m;
        to_server(p->cl, &f);
    } else {
        Paddock__V1__DbwCommand m = *(const Paddock__V1__DbwCommand *)msg;
        m.session_id = p->ch->session_id;
        m.vehicle_id = p->ch->vehicle;
        f.body_case = PADDOCK__V1__FRAME__BODY_DBW_COMMAND;
        f.dbw_command = &m;
        to_server(p->cl, &f);
    }
    return PDK_OK;
}

static void on_binary(pdk_ws *ws, const uint8_t *data, size_t len, void *ud)
{
    (void)ud;
    fox_client *cl = pdk_ws_data(ws);
    if (!cl)
        return;
    if (len < 5 || data[0] != OP_MESSAGE_DATA) {
        send_status(cl, 2,
                    "a binary message of %zu bytes with opcode 0x%02x: paddockd takes only "
                    "0x01 (client message data: channel id, then the message)",
                    len, len > 0 ? data[0] : 0u);
        return;
    }
    uint32_t id = get_u32(data + 1);
    const fox_client_channel *ch = NULL;
    for (size_t k = 0; k < MAX_CLIENT_CHANNELS && !ch; k++)
        if (cl->chans[k].used && cl->chans[k].id == id)
            ch = &cl->chans[k];
    if (!ch) {
        send_status(cl, 2, "message on channel %" PRIu32 ", which you have not advertised", id);
        return;
    }
    publish_ctx p = {.cl = cl, .ch = ch};
    const ProtobufCMessageDescriptor *desc = ch->kit_message
                                                 ? &paddock__v1__dbw_message__descriptor
                                                 : &paddock__v1__dbw_command__descriptor;
    if (pdk_wire_body_read(desc, data + 5, len - 5, publish_take, &p) != PDK_OK)
        send_status(cl, 2, "message on channel %" PRIu32 " (%s) is not a %s", id, ch->topic,
                    ch->kit_message ? "paddock.v1.DbwMessage" : "paddock.v1.DbwCommand");
}

/* ---- the server's Frames to the client ----------------------------------- */

/* The client's clock: a Time message whenever the clock session's sim time
 * moves on, and a new sessionId (serverInfo again) when its timeline jumped
 * (a reset, a seek) or ran backwards, since Foxglove freezes a 3D scene
 * whose time goes back within one session. */
static void clock_at(fox_client *cl, uint64_t session_id, uint64_t time_ns)
{
    if (session_id != cl->clock_session)
        return;
    pdk_server_slot *slot = pdk_server_session_find(cl->fox->table, session_id);
    uint32_t epoch = slot ? slot->timeline_epoch : cl->clock_epoch;
    if (cl->clock_set && (epoch != cl->clock_epoch || time_ns < cl->clock_ns)) {
        cl->session_number++;
        send_server_info(cl);
    } else if (cl->clock_set && time_ns == cl->clock_ns) {
        return;
    }
    cl->clock_epoch = epoch;
    cl->clock_ns = time_ns;
    cl->clock_set = true;
    uint8_t msg[9];
    msg[0] = OP_TIME;
    put_u64(msg + 1, time_ns);
    pdk_ws_send_keyed(cl->ws, TIME_KEY, false, msg, sizeof(msg));
}

/* MessageData: opcode, subscription id, receive time, the message in buf. */
static void send_data(fox_client *cl, const fox_sub *s, uint32_t part, uint64_t time_ns,
                      pdk_buf *payload, bool keyed)
{
    uint8_t head[13];
    head[0] = OP_MESSAGE_DATA;
    put_u32(head + 1, s->fox_id);
    put_u64(head + 5, time_ns);
    pdk_buf *msg = &cl->fox->scratch;
    pdk_buf_reset(msg);
    if (pdk_buf_append(msg, head, sizeof(head)) != PDK_OK ||
        pdk_buf_append(msg, payload->data, payload->len) != PDK_OK)
        return;
    if (keyed)
        pdk_ws_send_keyed(cl->ws, stream_key(cl, s, part), false, msg->data, msg->len);
    else
        pdk_ws_send_binary(cl->ws, msg->data, msg->len);
}

static void send_scene(fox_client *cl, const fox_sub *s)
{
    pdk_server_slot *slot = pdk_server_session_find(cl->fox->table, s->session_id);
    if (!slot)
        return;
    if (slot->worker.busy) {
        /* Its tick is on a step thread (or a seek): the next look at the
         * sessions that finds it back redraws its scene for every
         * subscriber, this one included. */
        for (size_t i = 0; i < cl->fox->n_sessions; i++)
            if (cl->fox->sessions[i].id == s->session_id)
                cl->fox->sessions[i].vehicles_sig = UINT64_MAX;
        return;
    }
    uint64_t t_ns = tick_ns(pdk_world_tick(pdk_session_world(slot->session)));
    pdk_buf payload = {0};
    if (pdk_fox_scene_append(pdk_session_world(slot->session), s->session_id, t_ns, &payload) ==
        PDK_OK)
        send_data(cl, s, 0, t_ns, &payload, false);
    pdk_buf_free(&payload);
}

/* A state batch's transforms: world -> body for each vehicle (its CG and
 * ZYX attitude), body -> wheel for each wheel (its centre, steer and spin). */
static void send_transforms(fox_client *cl, const fox_sub *s, const Paddock__V1__StateBatch *sb,
                            uint64_t t_ns, pdk_buf *payload)
{
    char parent[PDK_FOX_FRAME_LEN], child[PDK_FOX_FRAME_LEN];
    for (size_t v = 0; v < sb->n_vehicles; v++) {
        const Paddock__V1__VehicleState *vs = sb->vehicles[v];
        pdk_fox_world_frame(sb->session_id, parent, sizeof(parent));
        pdk_fox_body_frame(sb->session_id, vs->vehicle_id, child, sizeof(child));
        pdk_fox_pose pose = {.x_m = vs->x_m, .y_m = vs->y_m, .z_m = vs->z_m};
        pdk_fox_pose_set_euler(&pose, vs->roll_rad, vs->pitch_rad, vs->yaw_rad);
        pdk_buf_reset(payload);
        if (pdk_wire_fox_transform_append(t_ns, parent, child, &pose, payload) == PDK_OK)
            send_data(cl, s, (uint32_t)(v * 8), t_ns, payload, true);
        for (size_t w = 0; w < vs->n_wheels && w < 4; w++) {
            const Paddock__V1__WheelState *ws = vs->wheels[w];
            char wheel[PDK_FOX_FRAME_LEN];
            pdk_fox_wheel_frame(sb->session_id, vs->vehicle_id, w, vs->n_wheels, wheel,
                                sizeof(wheel));
            pdk_fox_pose wp = {.x_m = ws->center_x_m, .y_m = ws->center_y_m, .z_m = ws->center_z_m};
            /* Steer about the body's z, then spin about the axle (y); a
             * positive spin rolls the wheel forward. */
            pdk_fox_pose_set_euler(&wp, 0.0, ws->spin_angle_rad, ws->steer_rad);
            pdk_buf_reset(payload);
            if (pdk_wire_fox_transform_append(t_ns, child, wheel, &wp, payload) == PDK_OK)
                send_data(cl, s, (uint32_t)(v * 8 + 1 + w), t_ns, payload, true);
        }
    }
}

static void on_state_batch(fox_client *cl, const Paddock__V1__StateBatch *sb)
{
    fox_sub *s = sub_by_server_id(cl, sb->subscription_id);
    if (!s)
        return;
    uint64_t t_ns = tick_ns(sb->tick);
    clock_at(cl, sb->session_id, t_ns);
    pdk_buf payload = {0};
    if (s->kind == FOX_TF) {
        send_transforms(cl, s, sb, t_ns, &payload);
    } else {
        for (size_t v = 0; v < sb->n_vehicles; v++) {
            if (sb->vehicles[v]->vehicle_id != s->vehicle)
                continue;
            if (pdk_wire_pack_append(&payload, &sb->vehicles[v]->base) == PDK_OK)
                send_data(cl, s, 0, t_ns, &payload, true);
        }
    }
    pdk_buf_free(&payload);
}

static void on_telemetry_batch(fox_client *cl, const Paddock__V1__TelemetryBatch *tb)
{
    fox_sub *s = sub_by_server_id(cl, tb->subscription_id);
    if (!s)
        return;
    uint64_t t_ns = tick_ns(tb->tick);
    clock_at(cl, tb->session_id, t_ns);
    pdk_buf payload = {0};
    for (size_t r = 0; r < tb->n_rows; r++) {
        const Paddock__V1__TelemetryRow *row = tb->rows[r];
        if (row->vehicle_id != s->vehicle || row->n_values != N_TELEMETRY)
            continue;
        if (pdk_wire_telemetry_sample_append(tb->session_id, row->vehicle_id, tb->tick,
                                             tb->sim_time_s, cl->fox->telemetry_chans, row->values,
                                             row->n_values, &payload) == PDK_OK)
            send_data(cl, s, 0, t_ns, &payload, true);
    }
    pdk_buf_free(&payload);
}

static void on_dbw_report(fox_client *cl, const Paddock__V1__DbwReport *r)
{
    fox_sub *s = sub_by_server_id(cl, r->subscription_id);
    if (!s)
        return;
    uint64_t t_ns = tick_ns(r->tick);
    pdk_buf payload = {0};
    /* Each report kind is its own latest-wins stream, as over TCP. */
    if (pdk_wire_pack_append(&payload, &r->base) == PDK_OK)
        send_data(cl, s, 0x8000u | (uint32_t)r->report_case, t_ns, &payload, true);
    pdk_buf_free(&payload);
}

/* A reply to a request this client's Foxglove request became. */
static void on_reply(fox_client *cl, const Paddock__V1__Frame *f)
{
    fox_pending *p = pending_find(cl, f->request_id);
    if (f->body_case == PADDOCK__V1__FRAME__BODY_ERROR) {
        const char *text = f->error->message ? f->error->message : "";
        if (!p) {
            /* Pushed: a subscription ended (its session closed, its vehicle
             * went), or the server refused the connection. */
            send_status(cl, 1, "%s", text);
            return;
        }
        switch (p->kind) {
        case PENDING_SUBSCRIBE: {
            fox_sub *s = sub_by_fox_id(cl, p->id);
            if (s)
                s->used = false;
            send_status(cl, 2, "subscribe to %s: %s", p->topic, text);
            break;
        }
        case PENDING_PUBLISH:
            /* The lease gate's refusal says who holds control. */
            send_status(cl, 2, "publish on %s: %s%s", p->topic,
                        f->error->code == PADDOCK__V1__ERROR_CODE__BUSY ? "not in control: " : "",
                        text);
            break;
        case PENDING_HELLO:
            send_status(cl, 2, "%s", text);
            break;
        case PENDING_UNSUBSCRIBE:
            /* Its server subscription had already ended (its vehicle went,
             * and the client heard so then): nothing more to say. */
            break;
        }
        p->request_id = 0;
        return;
    }
    if (!p)
        return;
    if (p->kind == PENDING_SUBSCRIBE) {
        fox_sub *s = sub_by_fox_id(cl, p->id);
        uint32_t id = f->body_case == PADDOCK__V1__FRAME__BODY_SUBSCRIBED
                          ? f->subscribed->subscription_id
                      : f->body_case == PADDOCK__V1__FRAME__BODY_TELEMETRY_SCHEMA
                          ? f->telemetry_schema->subscription_id
                          : 0;
        if (s)
            s->server_sub = id;
        else if (id != 0) {
            /* Unsubscribed before the reply came: end it. */
            fox_sub gone = {.server_sub = id, .fox_id = p->id};
            end_server_sub(cl, &gone);
        }
    }
    p->request_id = 0;
}

/* A Frame the server sent this client's connection (local.h). A state
 * frame's key is the server's for the whole batch; each Foxglove message
 * made from it gets a key of its own (stream_key), so the WebSocket's
 * latest-wins queue replaces per vehicle, per transform and per report
 * kind. */
static pdk_error peer_frame(void *ud, const uint8_t *frame, size_t len, bool state, uint32_t key)
{
    (void)state;
    (void)key;
    fox_client *cl = ud;
    if (cl->closing)
        return PDK_ERR_CLOSED;
    pdk_error err = PDK_OK;
    Paddock__V1__Frame *f = pdk_wire_frame_decode(frame, len, &err);
    if (!f)
        return PDK_OK; /* the server sent it; nothing the client could fix */
    switch (f->body_case) {
    case PADDOCK__V1__FRAME__BODY_STATE_BATCH:
        on_state_batch(cl, f->state_batch);
        break;
    case PADDOCK__V1__FRAME__BODY_TELEMETRY_BATCH:
        on_telemetry_batch(cl, f->telemetry_batch);
        break;
    case PADDOCK__V1__FRAME__BODY_DBW_REPORT:
        on_dbw_report(cl, f->dbw_report);
        break;
    case PADDOCK__V1__FRAME__BODY_CONTROL_EVENT: {
        const Paddock__V1__ControlEvent *e = f->control_event;
        send_status(cl, 1, "vehicle %" PRIu32 " of session %" PRIu64 ": %s now has control%s%s",
                    e->vehicle_id, e->session_id, pdk_control_source_name((int)e->active_source),
                    e->reason && *e->reason ? ": " : "", e->reason ? e->reason : "");
        break;
    }
    default:
        on_reply(cl, f);
        break;
    }
    pdk_wire_frame_free(f);
    return PDK_OK;
}

/* The server closed this client's connection: close the WebSocket; its
 * on_close hangs the connection up. */
static void peer_close(void *ud)
{
    fox_client *cl = ud;
    if (!cl->closing) {
        cl->closing = true;
        pdk_ws_close(cl->ws, 1011, "the server closed this connection");
    }
}

static void peer_stats(void *ud, size_t *queued_bytes, uint64_t *state_dropped)
{
    fox_client *cl = ud;
    pdk_conn_stats st;
    pdk_ws_stats_get(cl->ws, &st);
    *queued_bytes = st.queued_bytes;
    *state_dropped = st.state_dropped;
}

/* ---- connections --------------------------------------------------------- */

static void on_open(pdk_ws *ws, void *ud)
{
    pdk_foxglove *fox = ud;
    fox_client *cl = calloc(1, sizeof(*cl));
    if (!cl) {
        pdk_ws_close(ws, 1011, "the server is out of memory");
        return;
    }
    cl->fox = fox;
    cl->ws = ws;
    pdk_ws_set_data(ws, cl);
    cl->next = fox->clients;
    if (fox->clients)
        fox->clients->prev = cl;
    fox->clients = cl;
    pdk_local_peer peer = {.on_frame = peer_frame, .on_close = peer_close, .stats = peer_stats};
    char name[96];
    snprintf(name, sizeof(name), "%s (%s)", pdk_ws_peer(ws), pdk_ws_subprotocol(ws));
    cl->conn = pdk_local_open(fox->local, &peer, cl, name);
    if (!cl->conn) {
        pdk_ws_close(ws, 1011, "the server is closing or out of memory");
        cl->closing = true;
        return;
    }
    /* The server's conversation starts with Hello, as every client's. */
    Paddock__V1__Hello h = PADDOCK__V1__HELLO__INIT;
    h.protocol_version = PADDOCK__V1__PROTOCOL_VERSION__PROTOCOL_VERSION_1;
    h.client_name = "foxglove";
    Paddock__V1__Frame f = PADDOCK__V1__FRAME__INIT;
    f.request_id = remember(cl, PENDING_HELLO, 0, NULL);
    f.body_case = PADDOCK__V1__FRAME__BODY_HELLO;
    f.hello = &h;
    to_server(cl, &f);
    send_server_info(cl);
    for (size_t i = 0; i < fox->n_channels; i++)
        advertise(cl, &fox->channels[i]);
}

/* Hangs the client's server connection up (the server's on_close runs)
 * and frees the client; its WebSocket is not touched. */
static void client_free(pdk_foxglove *fox, fox_client *cl)
{
    cl->closing = true;
    if (cl->conn)
        pdk_local_hangup(cl->conn);
    if (cl->prev)
        cl->prev->next = cl->next;
    else
        fox->clients = cl->next;
    if (cl->next)
        cl->next->prev = cl->prev;
    pdk_buf_free(&cl->buf);
    free(cl);
}

static void on_close(pdk_ws *ws, void *ud)
{
    fox_client *cl = pdk_ws_data(ws);
    if (!cl)
        return;
    pdk_ws_set_data(ws, NULL);
    client_free(ud, cl);
}

/* ---- the channel table --------------------------------------------------- */

static fox_channel *channel_find(pdk_foxglove *fox, fox_kind kind, uint64_t session_id,
                                 pdk_vehicle_id vehicle)
{
    for (size_t i = 0; i < fox->n_channels; i++) {
        fox_channel *ch = &fox->channels[i];
        if (ch->kind == kind && ch->session_id == session_id && ch->vehicle == vehicle)
            return ch;
    }
    return NULL;
}

static void channel_keep(pdk_foxglove *fox, fox_kind kind, uint64_t session_id,
                         pdk_vehicle_id vehicle)
{
    fox_channel *ch = channel_find(fox, kind, session_id, vehicle);
    if (ch) {
        ch->seen = true;
        return;
    }
    if (fox->n_channels == fox->cap_channels) {
        size_t cap = fox->cap_channels ? fox->cap_channels * 2 : 32;
        fox_channel *p = realloc(fox->channels, cap * sizeof(*p));
        if (!p)
            return; /* advertised at a later poll */
        fox->channels = p;
        fox->cap_channels = cap;
    }
    ch = &fox->channels[fox->n_channels++];
    *ch = (fox_channel){.id = ++fox->next_channel_id,
                        .kind = kind,
                        .session_id = session_id,
                        .vehicle = vehicle,
                        .seen = true};
    if (vehicle)
        snprintf(ch->topic, sizeof(ch->topic), "/session/%" PRIu64 "/vehicle/%" PRIu32 "/%s",
                 session_id, vehicle, kind_topic[kind]);
    else
        snprintf(ch->topic, sizeof(ch->topic), "/session/%" PRIu64 "/%s", session_id,
                 kind_topic[kind]);
    for (fox_client *cl = fox->clients; cl; cl = cl->next)
        if (!cl->closing)
            advertise(cl, ch);
}

static fox_session *session_keep(pdk_foxglove *fox, uint64_t id)
{
    for (size_t i = 0; i < fox->n_sessions; i++) {
        if (fox->sessions[i].id == id) {
            fox->sessions[i].seen = true;
            return &fox->sessions[i];
        }
    }
    if (fox->n_sessions == fox->cap_sessions) {
        size_t cap = fox->cap_sessions ? fox->cap_sessions * 2 : 8;
        fox_session *p = realloc(fox->sessions, cap * sizeof(*p));
        if (!p)
            return NULL;
        fox->sessions = p;
        fox->cap_sessions = cap;
    }
    fox_session *s = &fox->sessions[fox->n_sessions++];
    *s = (fox_session){.id = id, .seen = true};
    return s;
}

/* Compares the channels with the sessions and their vehicles: new ones
 * are advertised, gone ones unadvertised (their subscriptions end), and a
 * session whose vehicles changed has its scene redrawn. */
static void sync_channels(pdk_foxglove *fox)
{
    for (size_t i = 0; i < fox->n_channels; i++)
        fox->channels[i].seen = false;
    for (size_t i = 0; i < fox->n_sessions; i++)
        fox->sessions[i].seen = false;
    for (size_t i = 0; i < fox->table->n; i++) {
        pdk_server_slot *slot = &fox->table->items[i];
        fox_session *fs = session_keep(fox, slot->id);
        if (slot->worker.busy) {
            /* A worker owns it (a seek): keep what it had. */
            for (size_t k = 0; k < fox->n_channels; k++)
                if (fox->channels[k].session_id == slot->id)
                    fox->channels[k].seen = true;
            continue;
        }
        channel_keep(fox, FOX_SCENE, slot->id, 0);
        channel_keep(fox, FOX_TF, slot->id, 0);
        const pdk_world *w = pdk_session_world(slot->session);
        uint64_t sig = (uint64_t)pdk_world_vehicle_count(w);
        for (int v = 0; v < pdk_world_vehicle_count(w); v++) {
            pdk_vehicle_id id = pdk_world_vehicle_at(w, v);
            sig = sig * 1000003u + id;
            channel_keep(fox, FOX_STATE, slot->id, id);
            channel_keep(fox, FOX_TELEMETRY, slot->id, id);
            channel_keep(fox, FOX_DBW, slot->id, id);
        }
        if (fs && fs->vehicles_sig != sig) {
            fs->vehicles_sig = sig;
            for (fox_client *cl = fox->clients; cl; cl = cl->next)
                for (size_t k = 0; k < MAX_CLIENT_SUBS; k++)
                    if (cl->subs[k].used && cl->subs[k].kind == FOX_SCENE &&
                        cl->subs[k].session_id == slot->id && !cl->closing)
                        send_scene(cl, &cl->subs[k]);
        }
    }
    for (size_t i = 0; i < fox->n_channels;) {
        fox_channel *ch = &fox->channels[i];
        if (ch->seen) {
            i++;
            continue;
        }
        for (fox_client *cl = fox->clients; cl; cl = cl->next) {
            if (cl->closing)
                continue;
            for (size_t k = 0; k < MAX_CLIENT_SUBS; k++)
                if (cl->subs[k].used && cl->subs[k].channel_id == ch->id)
                    end_server_sub(cl, &cl->subs[k]);
            send_json(cl, json_pack("{s:s, s:[I]}", "op", "unadvertise", "channelIds",
                                    (json_int_t)ch->id));
            if (cl->clock_session == ch->session_id && ch->vehicle == 0 && ch->kind == FOX_TF) {
                cl->clock_session = 0;
                cl->clock_set = false;
            }
        }
        fox->channels[i] = fox->channels[--fox->n_channels];
    }
    for (size_t i = 0; i < fox->n_sessions;) {
        if (fox->sessions[i].seen)
            i++;
        else
            fox->sessions[i] = fox->sessions[--fox->n_sessions];
    }
}

static void on_poll(uv_timer_t *t)
{
    sync_channels(t->data);
}

/* ---- life ---------------------------------------------------------------- */

pdk_foxglove *pdk_foxglove_create(uv_loop_t *loop, pdk_server_table *table,
                                  const pdk_net_limits *limits, const pdk_net_callbacks *cb,
                                  void *ud, char *err, size_t err_len)
{
    pdk_foxglove *fox = calloc(1, sizeof(*fox));
    if (!fox) {
        snprintf(err, err_len, "foxglove: out of memory");
        return NULL;
    }
    fox->table = table;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    fox->start_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
    for (size_t i = 0; i < N_TELEMETRY; i++) {
        fox->telemetry_chans[i] = pdk_channel_find(telemetry_names[i]);
        PDK_ASSERT(fox->telemetry_chans[i] >= 0);
    }
    fox->paddock_schema = base64(pdk_paddock_fds, pdk_paddock_fds_len);
    fox->foxglove_schema = base64(pdk_foxglove_fds, pdk_foxglove_fds_len);
    if (!fox->paddock_schema || !fox->foxglove_schema) {
        snprintf(err, err_len, "foxglove: out of memory");
        pdk_foxglove_free(fox);
        return NULL;
    }
    if (pdk_local_listen(limits, cb, ud, &fox->local, err, err_len) != PDK_OK) {
        pdk_foxglove_free(fox);
        return NULL;
    }
    uv_timer_init(loop, &fox->poll);
    fox->poll.data = fox;
    uv_timer_start(&fox->poll, on_poll, 0, POLL_MS);
    fox->poll_on = true;
    return fox;
}

pdk_ws_handler pdk_foxglove_handler(pdk_foxglove *fox)
{
    pdk_ws_handler h = {.subprotocols = {PDK_FOXGLOVE_SUBPROTOCOL, PDK_FOXGLOVE_SDK_SUBPROTOCOL},
                        .on_open = on_open,
                        .on_text = on_text,
                        .on_binary = on_binary,
                        .on_close = on_close,
                        .ud = fox};
    return h;
}

void pdk_foxglove_close(pdk_foxglove *fox)
{
    if (!fox)
        return;
    if (fox->poll_on && !uv_is_closing((uv_handle_t *)&fox->poll))
        uv_close((uv_handle_t *)&fox->poll, NULL);
    fox->poll_on = false;
    for (fox_client *cl = fox->clients; cl; cl = cl->next)
        peer_close(cl);
    /* An empty local listener is freed at once, else by its last hang-up. */
    pdk_listener_close(fox->local);
    fox->local = NULL;
}

void pdk_foxglove_free(pdk_foxglove *fox)
{
    if (!fox)
        return;
    while (fox->clients)
        client_free(fox, fox->clients);
    pdk_listener_close(fox->local); /* never closed: empty now, so freed at once */
    free(fox->channels);
    free(fox->sessions);
    free(fox->paddock_schema);
    free(fox->foxglove_schema);
    pdk_buf_free(&fox->scratch);
    free(fox);
}

/**
 * Which gmtags node a chat message shows (SPEC §7.1, by content): the Game
 * panel pins the state after the message the player is looking at.
 *
 * A message is known by its receipts, in order, each with whitespace runs
 * collapsed (`receiptKeys`). A node matches a message when the message's
 * receipts are the node's, or the node's chain of continuations back to a
 * reply joined (a continued message holds the receipts of every piece).
 * Among matching nodes the one whose earlier replies also match the chat's
 * earlier messages wins (a swipe of an earlier message makes a different
 * past), then the current one, then the newest.
 */

import { collapse, receiptKeys } from './receipts.js';

/** The `?node=` value of the chat's start state (gmtags/server/pages/state_timeline.py). */
export const START = 'start';

/**
 * @typedef {object} ApiNode
 * @property {string} id
 * @property {string | null} parent
 * @property {string} kind `reply` or `continuation`.
 * @property {string[]} receipts
 * @property {boolean} [current]
 */

/** @param {string[]} a @param {string[]} b */
function same(a, b) {
    return a.length === b.length && a.every((item, i) => item === b[i]);
}

/**
 * The chains that end at `node`: the node alone, then with the reply it
 * continues, and so on up its continuations; each with its receipts joined
 * and the node before the chain.
 * @param {ApiNode} node
 * @param {Map<string, ApiNode>} byId
 * @returns {{receipts: string[], before: string | null}[]}
 */
function chainsEndingAt(node, byId) {
    const chains = [];
    /** @type {string[]} */
    let receipts = [];
    /** @type {ApiNode | undefined} */
    let piece = node;
    const seen = new Set();
    while (piece && !seen.has(piece.id)) {
        seen.add(piece.id);
        receipts = [...(piece.receipts ?? []).map(collapse), ...receipts];
        chains.push({ receipts, before: piece.parent ?? null });
        if (piece.kind !== 'continuation' || !piece.parent) {
            break;
        }
        piece = byId.get(piece.parent);
    }
    return chains;
}

/**
 * The nodes whose chain holds exactly `receipts`, each with the node before it.
 * @param {string[]} receipts
 * @param {ApiNode[]} nodes
 * @param {Map<string, ApiNode>} byId
 */
function matches(receipts, nodes, byId) {
    const found = [];
    for (const node of nodes) {
        const chain = chainsEndingAt(node, byId).find(c => same(c.receipts, receipts));
        if (chain) {
            found.push({ node, before: chain.before });
        }
    }
    return found;
}

/**
 * The node id for the message at `index` of `messages` (SillyTavern's chat
 * array: `{mes, is_user, is_system}`), `START` when no message up to it
 * carries receipts, or null when its receipts match no node (not played
 * through gmtags, or edited).
 * @param {{mes?: string, is_user?: boolean}[]} messages
 * @param {number} index
 * @param {ApiNode[]} nodes Oldest first, as `GET /gmtags/api/chats/{chat}` lists them.
 * @returns {string | null}
 */
export function nodeForMessage(messages, index, nodes) {
    /** @type {string[][]} */
    const earlier = [];
    for (let i = Math.min(index, messages.length - 1); i >= 0; i--) {
        const message = messages[i];
        if (message && !message.is_user) {
            const keys = receiptKeys(message.mes ?? '');
            if (keys.length) {
                earlier.push(keys);
            }
        }
    }
    if (!earlier.length) {
        return START;
    }
    const byId = new Map(nodes.map(node => [node.id, node]));
    const candidates = matches(earlier[0], nodes, byId);
    if (!candidates.length) {
        return null;
    }
    const scored = candidates.map((candidate, order) => ({
        id: candidate.node.id,
        past: pastMatching(candidate.before, earlier.slice(1), byId),
        current: candidate.node.current ? 1 : 0,
        order,
    }));
    scored.sort((a, b) => b.past - a.past || b.current - a.current || b.order - a.order);
    return scored[0].id;
}

/**
 * How many of the earlier messages' receipts (newest first) the nodes before
 * `before` show, in order, skipping nodes without receipts.
 * @param {string | null} before
 * @param {string[][]} earlier
 * @param {Map<string, ApiNode>} byId
 */
function pastMatching(before, earlier, byId) {
    let count = 0;
    let cursor = before ? byId.get(before) : undefined;
    const seen = new Set();
    while (cursor && count < earlier.length && !seen.has(cursor.id)) {
        seen.add(cursor.id);
        const chain = chainsEndingAt(cursor, byId).find(c => same(c.receipts, earlier[count]));
        if (chain) {
            count += 1;
            cursor = chain.before ? byId.get(chain.before) : undefined;
        } else if (!(cursor.receipts ?? []).length) {
            cursor = cursor.parent ? byId.get(cursor.parent) : undefined;
        } else {
            break;
        }
    }
    return count;
}

/**
 * What the Game panel pins for the message at `index`: its node, or null to
 * follow the chat live, which it does for the chat's current node (the live
 * state also holds the characters saved on the pages since: SPEC §11) and
 * when no message is looked at. `known` is false when the message's receipts
 * match no node (not played through gmtags, or edited): the panel then shows
 * the live state and says so.
 * @param {{mes?: string, is_user?: boolean}[]} messages
 * @param {number | null} index
 * @param {ApiNode[]} nodes
 * @returns {{node: string | null, known: boolean}}
 */
export function panelPin(messages, index, nodes) {
    if (index === null) {
        return { node: null, known: true };
    }
    const node = nodeForMessage(messages, index, nodes);
    if (node === null) {
        return { node: null, known: false };
    }
    const current = nodes.some(n => String(n?.id) === String(node) && n?.current);
    return { node: current ? null : node, known: true };
}

/**
 * Receipts found in a rendered message whose text is split across elements.
 *
 * SillyTavern's `messageFormatting` wraps each quoted value in a `<q>` and
 * runs Markdown, so one receipt's text lies in several text nodes. The
 * extension reads the text nodes in order (`pieces`; a `null` piece stands
 * for a line or block break, so no receipt is read across one), finds the
 * receipts in their joined text, and gets back where each starts and ends as
 * (piece, offset) pairs, from which the DOM side makes a Range.
 */

import { findReceipts } from './receipts.js';

/**
 * @typedef {object} Place
 * @property {number} piece Index into `pieces`.
 * @property {number} offset Offset into that piece's text.
 */

/**
 * @typedef {object} Located
 * @property {import('./receipts.js').Receipt} receipt
 * @property {Place} start
 * @property {Place} end The place just after the receipt's last character.
 */

/**
 * Every receipt in the joined pieces, with where it starts and ends.
 * @param {(string | null)[]} pieces Text node contents in document order; null for a break.
 * @returns {Located[]}
 */
export function locateReceipts(pieces) {
    /** @type {number[]} */
    const starts = [];
    let joined = '';
    for (const piece of pieces) {
        starts.push(joined.length);
        joined += piece === null ? '\n' : piece;
    }
    /**
     * @param {number} at
     * @param {boolean} isEnd An end place stays in the piece that holds the last character.
     * @returns {Place}
     */
    const place = (at, isEnd) => {
        for (let i = pieces.length - 1; i >= 0; i--) {
            const piece = pieces[i];
            if (piece === null) {
                continue;
            }
            const from = starts[i];
            if (isEnd ? at > from && at <= from + piece.length : at >= from && at < from + piece.length) {
                return { piece: i, offset: at - from };
            }
        }
        return { piece: 0, offset: 0 };
    };
    return findReceipts(joined).map(receipt => ({
        receipt,
        start: place(receipt.start, false),
        end: place(receipt.end, true),
    }));
}

/**
 * The message the player is looking at: the last one whose top is within the
 * view, else the last one above it (a long message fills the view), else the
 * newest.
 * @param {{id: number, top: number}[]} messages In chat order, `top` in the view's coordinates.
 * @param {number} viewTop
 * @param {number} viewBottom
 * @returns {number | null}
 */
export function messageInView(messages, viewTop, viewBottom) {
    if (!messages.length) {
        return null;
    }
    const inside = messages.filter(m => m.top >= viewTop && m.top < viewBottom);
    if (inside.length) {
        return inside[inside.length - 1].id;
    }
    const above = messages.filter(m => m.top < viewTop);
    if (above.length) {
        return above[above.length - 1].id;
    }
    return messages[messages.length - 1].id;
}

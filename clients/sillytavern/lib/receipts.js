/**
 * Finding gmtags receipts in a message's text (SPEC §3, §7.1).
 *
 * A receipt is a whole tag of a command gmtags knows (`skill_check`, `sheet`,
 * `clock`) that carries `result=`: the engine wrote it. The scan mirrors
 * gmtags' own (`gmtags/tags/scan.py`, `gmtags/history/fingerprint.py`): a
 * head `[name:`, then anything but brackets, quotes and line breaks, or a
 * quoted value (which may hold brackets), then `]`, all on one line. So the
 * receipts this module lists for a message are the ones gmtags stored for
 * its reply, in the same order and with whitespace runs collapsed the same
 * way.
 */

/** The commands gmtags writes receipts for (`TAG_NAMES` in gmtags/tags/scan.py). */
export const COMMANDS = Object.freeze(['skill_check', 'sheet', 'clock']);

const QUOTES = '"\u201c\u201d';
const HEAD = new RegExp(`\\[(${COMMANDS.join('|')})[ \\t]*:`, 'gi');
const BODY = new RegExp(`(?:[^\\]\\[\\r\\n${QUOTES}]+|[${QUOTES}][^${QUOTES}\\r\\n]*[${QUOTES}])*\\]`, 'y');
const RESULT = new RegExp(`(?<![A-Za-z0-9_])result[ \\t]*=[ \\t]*[${QUOTES}]`);
const ATTRIBUTE = new RegExp(
    `([A-Za-z_][A-Za-z0-9_]*)(?:[ \\t]*=[ \\t]*(?:[${QUOTES}]([^${QUOTES}\\r\\n]*)[${QUOTES}]|([^\\s\\]${QUOTES}]+)))?`,
    'g',
);

/**
 * A text with whitespace runs collapsed to one space and trimmed, as gmtags
 * compares receipts.
 * @param {string} text
 * @returns {string}
 */
export function collapse(text) {
    return String(text).replace(/\s+/g, ' ').trim();
}

/**
 * The attributes of a tag body (what follows `name:`), in order. A bare flag
 * (`clear`) has the value `"true"`.
 * @param {string} body
 * @returns {Record<string, string>}
 */
export function parseAttributes(body) {
    /** @type {Record<string, string>} */
    const attributes = {};
    for (const match of String(body).matchAll(ATTRIBUTE)) {
        const [, key, quoted, bare] = match;
        if (Object.hasOwn(attributes, key)) {
            continue;
        }
        attributes[key] = quoted ?? bare ?? 'true';
    }
    return attributes;
}

/**
 * @typedef {object} Receipt
 * @property {number} start Where the tag starts in the text.
 * @property {number} end Where it ends (exclusive).
 * @property {string} text The tag as written.
 * @property {string} command The tag's name, lower case (`skill_check`).
 * @property {Record<string, string>} attributes Its attributes, in order.
 */

/**
 * Every receipt in `text`, in order (tags without `result=` are not receipts).
 * @param {string} text
 * @returns {Receipt[]}
 */
export function findReceipts(text) {
    const source = String(text ?? '');
    /** @type {Receipt[]} */
    const found = [];
    HEAD.lastIndex = 0;
    let head;
    while ((head = HEAD.exec(source)) !== null) {
        BODY.lastIndex = head.index + head[0].length;
        const body = BODY.exec(source);
        if (body === null) {
            continue;
        }
        const tag = source.slice(head.index, BODY.lastIndex);
        HEAD.lastIndex = BODY.lastIndex;
        if (!RESULT.test(tag)) {
            continue;
        }
        found.push({
            start: head.index,
            end: BODY.lastIndex,
            text: tag,
            command: head[1].toLowerCase(),
            attributes: parseAttributes(tag.slice(head[0].length, -1)),
        });
    }
    return found;
}

/**
 * The receipts of a message as gmtags fingerprints them: each tag's text with
 * whitespace runs collapsed, in order.
 * @param {string} text
 * @returns {string[]}
 */
export function receiptKeys(text) {
    return findReceipts(text).map(receipt => collapse(receipt.text));
}

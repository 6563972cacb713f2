// Reads the receipts the real engine wrote (tests/clients/make_fixtures.py).
import { readFileSync } from 'node:fs';

import { findReceipts } from '../../clients/sillytavern/lib/receipts.js';

const HERE = new URL('./fixtures/', import.meta.url);

/**
 * The engine's output for the case whose title starts with `title` in `file`.
 * @param {string} file e.g. `skill_check-dice_sum`
 * @param {string} title
 */
export function caseText(file, title) {
    const text = readFileSync(new URL(`${file}.txt`, HERE), 'utf8');
    for (const block of text.split(/^=== /m).slice(1)) {
        const newline = block.indexOf('\n');
        if (block.slice(0, newline).startsWith(title)) {
            return block.slice(newline + 1);
        }
    }
    throw new Error(`no case "${title}" in ${file}`);
}

/** The receipts of that case, in order. @param {string} file @param {string} title */
export function receiptsOf(file, title) {
    return findReceipts(caseText(file, title));
}

/** Every receipt in a fixture file. @param {string} file */
export function allReceipts(file) {
    return findReceipts(readFileSync(new URL(`${file}.txt`, HERE), 'utf8'));
}

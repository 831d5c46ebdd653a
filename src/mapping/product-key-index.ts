import type { SheetRow } from '../sheets/sheet-row.js';
import { cellIssue, type KeyColumns } from './bound-column.js';
import type { GroupParking } from './parked-group.js';
import { failGroup, type ProductGroup } from './product-group.js';

type KeyKind = 'id' | 'ref' | 'sku';

const KEY_LABEL = { id: 'id', ref: 'reference_id', sku: 'sku' } as const;

/**
 * The products of a sheet by identifier: which product a row joins, from its `id`, else its
 * `reference_id`, else its `sku`, and the clashes (an identifier of another product, a product's
 * second value for one identifier) reported on the row's cell.
 */
export class ProductKeyIndex {
  /** Every product in order of first appearance. */
  readonly groups: ProductGroup[] = [];
  private readonly byId = new Map<string, ProductGroup>();
  private readonly byRef = new Map<string, ProductGroup>();
  private readonly bySku = new Map<string, ProductGroup>();

  /**
   * @param slots number of product value columns (each new product gets that many slots).
   * @param parking when given, products not recently used are parked (GroupParking): every group
   *   this index returns is unparked.
   */
  constructor(
    private readonly slots: number,
    private readonly parking?: GroupParking,
  ) {}

  /** The product whose sku is `sku`. */
  ownerOfSku(sku: string): ProductGroup | undefined {
    return this.bySku.get(sku);
  }

  /** Finds (or, with `create`, creates) the product of a row from its identifiers; reports key clashes. */
  groupOf(
    row: SheetRow,
    id: string | undefined,
    ref: string | undefined,
    sku: string | undefined,
    cols: KeyColumns,
    create: boolean,
  ): ProductGroup | undefined {
    const gId = id === undefined ? undefined : this.byId.get(id);
    const gRef = ref === undefined ? undefined : this.byRef.get(ref);
    const gSku = sku === undefined ? undefined : this.bySku.get(sku);
    // A lower-priority identifier only leads to a product that has no higher-priority one of its own
    // (a row `R2,K` does not join the product `R1,K`: that is a duplicate sku, not the same product).
    let group = gId;
    if (group === undefined && gRef !== undefined && (id === undefined || gRef.id === undefined))
      group = gRef;
    if (
      group === undefined &&
      gSku !== undefined &&
      (id === undefined || gSku.id === undefined) &&
      (ref === undefined || gSku.ref === undefined)
    ) {
      group = gSku;
    }
    if (group === undefined) {
      if (!create) return undefined;
      const g: ProductGroup = {
        order: this.groups.length,
        id,
        ref,
        sku,
        command: undefined,
        commandRow: 0,
        values: new Array<unknown>(this.slots),
        valueRows: [],
        variants: [],
        options: undefined,
        rows: [],
        issues: [],
        invalid: false,
        firstRow: row.rowNumber,
        sourceCategories: undefined,
        packed: undefined,
      };
      this.groups.push(g);
      this.parking?.touch(g);
      this.claimKey(row, g, 'id', id, gId, cols);
      this.claimKey(row, g, 'ref', ref, gRef, cols);
      this.claimKey(row, g, 'sku', sku, gSku, cols);
      return g;
    }
    this.parking?.touch(group);
    // Fast path: the row repeats exactly the identifiers its product already has.
    if (group.id === id && group.ref === ref && group.sku === sku) return group;
    this.checkKey(row, group, 'id', id, gId, cols);
    this.checkKey(row, group, 'ref', ref, gRef, cols);
    this.checkKey(row, group, 'sku', sku, gSku, cols);
    return group;
  }

  private indexOf(which: KeyKind): Map<string, ProductGroup> {
    return which === 'id' ? this.byId : which === 'ref' ? this.byRef : this.bySku;
  }

  /** A new product takes its identifiers unless another product already holds one. */
  private claimKey(
    row: SheetRow,
    g: ProductGroup,
    which: KeyKind,
    value: string | undefined,
    taken: ProductGroup | undefined,
    cols: KeyColumns,
  ): void {
    if (value === undefined) return;
    if (taken === undefined) {
      this.indexOf(which).set(value, g);
      return;
    }
    const label = KEY_LABEL[which];
    failGroup(
      g,
      cellIssue(
        row,
        cols[which],
        `duplicate_${label}`,
        `${label} "${value}" already belongs to another product (row ${firstRowOf(taken) ?? '?'}); each product needs its own ${label}`,
      ),
    );
  }

  /** A later row of a product: each identifier it gives must be the product's (or new to it). */
  private checkKey(
    row: SheetRow,
    g: ProductGroup,
    which: KeyKind,
    value: string | undefined,
    registered: ProductGroup | undefined,
    cols: KeyColumns,
  ): void {
    if (value === undefined) return;
    const label = KEY_LABEL[which];
    if (registered !== undefined && registered !== g) {
      this.claimKey(row, g, which, value, registered, cols);
      return;
    }
    const current = g[which];
    if (current === undefined) {
      g[which] = value;
      this.indexOf(which).set(value, g);
    } else if (current !== value) {
      failGroup(
        g,
        cellIssue(
          row,
          cols[which],
          'conflicting_key',
          `this row joins the product of row ${firstRowOf(g) ?? '?'} (same ${keyName(g, which)}) whose ${label} is "${current}", not "${value}"; write the same ${label} on every row of a product`,
        ),
      );
    }
  }
}

/** How a product is named in a message: by an identifier other than `except`. */
function keyName(g: ProductGroup, except: KeyKind): string {
  if (except !== 'id' && g.id !== undefined) return `id ${g.id}`;
  if (except !== 'ref' && g.ref !== undefined) return `reference_id ${g.ref}`;
  if (except !== 'sku' && g.sku !== undefined) return `sku ${g.sku}`;
  return 'key';
}

/** The number of a product's first row (its rows may be parked). */
export function firstRowOf(g: ProductGroup): number | undefined {
  return g.packed !== undefined ? g.firstRow : g.rows[0]?.rowNumber;
}

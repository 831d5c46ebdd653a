import type { StoreSnapshot } from '../../../src/schema/index.js';

/**
 * Internal consistency of a snapshot beyond its schema, as short messages (empty when consistent):
 * unique ids, skus and inventory item ids; the inventory item rules (product.inventory null when the
 * product has variants, item_type/product_id/variant_id/sku/price matching their owner); soldout
 * derived from stock; line items referencing existing products and variants with their skus;
 * updated_at never before created_at.
 */
export function snapshotProblems(snapshot: StoreSnapshot): string[] {
  const problems: string[] = [];
  const ids = new Set<string>();
  const unique = (kind: string, value: string) => {
    if (ids.has(`${kind}:${value}`)) problems.push(`duplicate ${kind} ${value}`);
    ids.add(`${kind}:${value}`);
  };
  const variants = new Map<string, { productId: string; sku: string | null }>();
  const products = new Map<string, string>();
  for (const p of snapshot.products) {
    unique('id', p.id);
    unique('sku', p.sku);
    products.set(p.id, p.sku);
    if (p.updated_at < p.created_at) problems.push(`${p.id}: updated_at before created_at`);
    if (p.variants.length > 0 && p.inventory !== null)
      problems.push(`${p.id}: has variants and its own inventory`);
    if (p.variants.length === 0) {
      const inv = p.inventory;
      if (inv === null) problems.push(`${p.id}: no variants and no inventory item`);
      else {
        unique('item', inv.item_id);
        if (inv.item_type !== 'product' || inv.product_id !== p.id || inv.variant_id !== null) {
          problems.push(`${p.id}: inventory item does not point at its product`);
        }
        if (inv.sku !== p.sku || inv.price !== p.price) problems.push(`${p.id}: inventory sku/price differ`);
      }
    }
    let inStock = false;
    for (const v of p.variants) {
      unique('id', v.id);
      if (v.sku !== null) unique('sku', v.sku);
      variants.set(v.id, { productId: p.id, sku: v.sku });
      if (v.product_id !== p.id) problems.push(`${v.id}: product_id ${v.product_id} != ${p.id}`);
      const inv = v.inventory;
      if (inv === null) {
        problems.push(`${v.id}: no inventory item`);
        continue;
      }
      unique('item', inv.item_id);
      if (inv.item_type !== 'variant' || inv.product_id !== p.id || inv.variant_id !== v.id) {
        problems.push(`${v.id}: inventory item does not point at its variant`);
      }
      if (inv.sku !== v.sku || inv.price !== v.price) problems.push(`${v.id}: inventory sku/price differ`);
      if (inv.quantity > 0) inStock = true;
    }
    if (p.variants.length === 0) inStock = (p.inventory?.quantity ?? 0) > 0;
    if (p.soldout !== (p.inventory_enabled && !inStock))
      problems.push(`${p.id}: soldout not derived from stock`);
    for (const o of p.options) unique('id', o.id);
  }
  for (const c of snapshot.customers) {
    unique('id', c.id);
    if (c.updated_at < c.created_at) problems.push(`${c.id}: updated_at before created_at`);
  }
  for (const o of snapshot.orders) {
    unique('id', o.id);
    unique('number', o.number);
    if (o.updated_at < o.created_at) problems.push(`${o.id}: updated_at before created_at`);
    if (o.currency !== snapshot.me.currency) problems.push(`${o.id}: currency ${o.currency}`);
    if (o.store.id !== snapshot.me.id) problems.push(`${o.id}: store ${o.store.id}`);
    for (const line of o.line_items) {
      unique('line', line.id);
      const sku = products.get(line.product_id);
      if (sku === undefined) {
        problems.push(`${o.id}/${line.id}: unknown product ${line.product_id}`);
        continue;
      }
      if (line.variant_id === null) {
        if (line.sku !== sku) problems.push(`${o.id}/${line.id}: sku ${line.sku} != product sku ${sku}`);
      } else {
        const v = variants.get(line.variant_id);
        if (v === undefined || v.productId !== line.product_id) {
          problems.push(`${o.id}/${line.id}: variant ${line.variant_id} not of ${line.product_id}`);
        } else if (v.sku !== line.sku) problems.push(`${o.id}/${line.id}: sku ${line.sku} != variant sku`);
      }
    }
  }
  for (const t of snapshot.templates) unique('template', t.name);
  return problems;
}

import { Link, useParams } from 'react-router-dom';
import { PageSpinner } from '../../components/Spinner';
import { usePageTitle } from '../../components/usePageTitle';
import { ProductArt } from './ProductArt';
import { contactLink, findProduct } from './products';
import { useSimulatedLoad } from './useSimulatedLoad';
import './site.css';

/** /products/{id}: commercial, personal or health (SPEC §2). */
export default function ProductDetailPage() {
  const { id } = useParams();
  const product = findProduct(id);
  const loading = useSimulatedLoad(500);
  usePageTitle(loading ? 'Products' : product ? product.title : 'Product Not Found');

  if (loading) return <PageSpinner label="Loading product..." />;
  if (!product) {
    return (
      <div className="page site-page">
        <h1>Product Not Found</h1>
        <p>The product you&apos;re looking for doesn&apos;t exist or has been removed.</p>
        <Link to="/products" className="btn btn-outline">Back to Products</Link>
      </div>
    );
  }
  return (
    <div className="page site-page">
      <section className="split">
        <div>
          <span className="tag">{product.tag}</span>
          <h1>{product.title}</h1>
          <p className="lead">{product.description}</p>
        </div>
        <ProductArt kind={product.id} label={product.title} />
      </section>
      <section className="card">
        <h2 className="card-title">Overview</h2>
        <p>{product.longDescription}</p>
        <h3>Features</h3>
        <ul>{product.features.map((feature) => <li key={feature}>{feature}</li>)}</ul>
      </section>
      {product.subProducts && (
        <section aria-labelledby="featured-title">
          <h2 id="featured-title">Featured Solutions</h2>
          <div className="site-grid">
            {product.subProducts.map((sub) => (
              <article key={sub.id} className="card site-card">
                <span className="tag">{sub.tag}</span>
                <h3 className="card-title">{sub.title}</h3>
                <p className="muted">{sub.description}</p>
                <Link
                  to={sub.id === 'lro' ? '/products/commercial/lro' : contactLink(product.id, sub.id)}
                  className="btn btn-outline"
                  aria-label={`Learn More about ${sub.title}`}
                >
                  Learn More
                </Link>
              </article>
            ))}
          </div>
        </section>
      )}
      <section className="card request-box">
        <h2 className="card-title">Request Information</h2>
        <p>Want to see {product.title} on your own addresses? Send us a note and we will set up a walkthrough.</p>
        <Link to={contactLink(product.id)} className="btn btn-accent">Request Information</Link>
      </section>
    </div>
  );
}

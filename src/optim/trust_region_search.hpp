// Derivative-free maximisation by quadratic models in a trust region, in ask-tell form (Conn,
// Scheinberg & Vicente 2009, Introduction to Derivative-Free Optimization, algorithm 10.1 with
// its model-improvement steps; Powell's radius rule of BOBYQA, 2009; models from
// quadratic_model.hpp, steps from trust_region_step.hpp). The caller keeps every evaluated point
// and passes them all to each proposal, so points evaluated for other reasons improve the models
// too. The centre is the best point so far.
//
// Once steps to the model's own maximum promise less than gain_tolerance, or the best value has
// gained less than gain_tolerance over the last 2(D+1) evaluations, a star design (the
// centre +- one model SD along each eigenvector of the model's Hessian) checks the top along
// every direction by second differences, and +- one marginal SD along each coordinate axis checks
// it once more; the design also gives the covariance the search reports.
#pragma once
#include <vector>

#include "io/serial.hpp"
#include "linalg/matrix.hpp"
#include "optim/quadratic_model.hpp"
#include "util/rng.hpp"

namespace libvbmc {

struct TrustRegionSettings {
    double initial_radius = 0.1;
    double max_radius = 10.0;
    // The top is reached when the star design finds less than this gain in all directions together.
    double gain_tolerance = 1.0;
    int max_evaluations = 100;  // told values of its own proposals
    // Noise SD of the values: the star design then steps max(1, sqrt(7 noise_sd)) model SDs, so
    // that its second differences (-steps^2 for a quadratic) stand three noise SDs of a second
    // difference (sqrt(6) noise_sd) clear of the noise.
    double noise_sd = 0.0;
};

enum class TrustRegionStop { running, located, max_evaluations, stalled };

class TrustRegionSearch {
public:
    TrustRegionSearch() = default;
    TrustRegionSearch(int dim, const TrustRegionSettings& settings);

    // The next point from all evaluated points z (n x D, n >= 1) and their finite values y[n].
    // Returns an empty vector, with stop() set, once the search has located a maximum. With
    // proposals still awaiting values, an extra point is a model-improvement point in a random
    // direction (rng).
    std::vector<double> propose(const Matrix& z, const std::vector<double>& y, Rng& rng);
    // The same around a given centre (a row of z), e.g. the best point of this search when z also
    // holds another search's points: they shape the models, the centre is this search's own.
    std::vector<double> propose(const Matrix& z, const std::vector<double>& y, int centre, Rng& rng);
    // The value of a proposed point (matched bitwise; non-finite for a failed evaluation);
    // values of other points are ignored.
    void tell(const double* z, double y);
    // Replace the last proposal by the point the caller will actually evaluate (its image of the
    // proposal, e.g. after a round trip through a bounded transform), so that tell matches it.
    void move_last_proposal(const double* z);
    // Forget a proposal that will never get a value (abandoned by the caller).
    void forget(const double* z);
    // Check a top already climbed to (e.g. by a gradient climb that stopped there) at once: the
    // star design around `centre` (value `centre_value`) along the eigenvectors of `covariance`
    // (D x D), one SD of it along each; when it finds the top, the model's own star design
    // follows, unless `axes_measured` (the covariance inverts a Hessian measured in full, whose
    // eigenvectors are the top's axes: the star's second differences along them are its
    // covariance). Nothing happens with proposals out or once stopped.
    void verify(const double* centre, double centre_value, const Matrix& covariance, bool axes_measured);

    int dim() const { return dim_; }
    TrustRegionStop stop() const { return stop_; }
    double radius() const { return radius_; }
    int evaluations() const { return evaluations_; }
    // The last fitted model (empty before the first proposal).
    const QuadraticModel& model() const { return model_; }
    // Whether a model has been fitted (the search has proposed a point).
    bool has_model() const { return model_.h.rows == dim_ && dim_ > 0; }
    // The next proposal is a point of the star design (independent of the values still out).
    bool has_star_point() const {
        return stop_ == TrustRegionStop::running && verifying_ && star_next_ < 4 * dim_;
    }
    // The covariance of the top (D x D): from the star design's second differences once located,
    // else from the model where it curves down (the trust radius^2 along the other directions),
    // the trust radius^2 along every direction before the first model.
    Matrix covariance() const;

    void write(Writer& out) const;
    static TrustRegionSearch read(Reader& in);

private:
    struct Proposal {
        std::vector<double> z;
        double predicted_gain = 0.0;  // 0 for a model-improvement or design point
        double centre_value = 0.0;
        double step_length = 0.0;
        bool poised = true;           // the model's points spanned every direction
        bool interior = false;        // the step reached the model's maximiser
        int star_index = -1;          // which star design point, or -1
    };
    struct StarSummary {
        double gain = 0.0, reach = 0.0;
        Matrix covariance;
    };
    void fit_model(const Matrix& z, const std::vector<double>& y, int centre);
    bool poised_direction(const Matrix& z, int centre, std::vector<double>& weakest) const;
    double model_sd(double h) const;
    void start_verification(const double* centre, double centre_value);
    void start_star(const double* centre, double centre_value, const std::vector<double>& sds, const Matrix& vectors);
    void record_star_value(int index, double value);
    StarSummary summarise_star() const;
    void finish_verification();

    std::vector<double> star_point(int index) const;
    std::vector<double> random_point(const double* centre, double length, Rng& rng) const;
    void uphill(std::vector<double>& step) const;
    void radius_after_step(const Proposal& p, double y);
    void note_progress(double best);

    int dim_ = 0;
    TrustRegionSettings settings_;
    double radius_ = 0.0;
    int evaluations_ = 0;
    bool last_step_failed_ = false;
    int flat_steps_ = 0;  // consecutive steps to a nearby model maximum promising < gain_tolerance
    std::vector<double> best_history_;  // the best value known at each tell
    TrustRegionStop stop_ = TrustRegionStop::running;
    QuadraticModel model_;
    std::vector<Proposal> proposals_;
    // The star design: centre, value there, directions (column i < D: one SD along eigenvector i;
    // column D + d: one marginal SD along axis d), values told (2 per direction, NaN until told),
    // the next index to propose.
    bool verifying_ = false;
    bool remodel_after_star_ = false;  // the star under way came from verify()
    std::vector<double> star_centre_;
    double star_centre_value_ = 0.0;
    Matrix star_directions_;
    std::vector<double> star_values_;
    int star_next_ = 0;
    Matrix located_covariance_;  // set once the star design confirms a top

};

}  // namespace libvbmc
